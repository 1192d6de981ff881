{{/*
An image reference: (dict "imageRoot" .Values.image "global" .Values.global). A global registry wins over the
image's own; a digest wins over the tag; the tag defaults to the chart's appVersion when "chart" is passed.
*/}}
{{- define "shared-lib.images.image" -}}
{{- $registry := .imageRoot.registry -}}
{{- if and .global .global.imageRegistry -}}
{{- $registry = .global.imageRegistry -}}
{{- end -}}
{{- $separator := ":" -}}
{{- $termination := toString (default "" .imageRoot.tag) -}}
{{- if and (not $termination) .chart -}}
{{- $termination = .chart.AppVersion -}}
{{- end -}}
{{- if .imageRoot.digest -}}
{{- $separator = "@" -}}
{{- $termination = .imageRoot.digest | toString -}}
{{- end -}}
{{- if $registry -}}
{{- printf "%s/%s%s%s" $registry .imageRoot.repository $separator $termination -}}
{{- else -}}
{{- printf "%s%s%s" .imageRoot.repository $separator $termination -}}
{{- end -}}
{{- end -}}

{{/*
imagePullSecrets from the globals and every image given: (dict "images" (list .Values.image) "global" .Values.global).
*/}}
{{- define "shared-lib.images.pullSecrets" -}}
{{- $secrets := list -}}
{{- if .global -}}
{{- range .global.imagePullSecrets -}}
{{- $secrets = append $secrets (kindIs "map" . | ternary (get (kindIs "map" . | ternary . dict) "name") .) -}}
{{- end -}}
{{- end -}}
{{- range .images -}}
{{- range .pullSecrets -}}
{{- $secrets = append $secrets (kindIs "map" . | ternary (get (kindIs "map" . | ternary . dict) "name") .) -}}
{{- end -}}
{{- end -}}
{{- if $secrets }}
imagePullSecrets:
{{- range $secrets | uniq }}
  - name: {{ . }}
{{- end }}
{{- end -}}
{{- end -}}
