{{/*
Renders a value that may hold templates: (dict "value" .Values.x "context" $ ["scope" $scope]).
*/}}
{{- define "shared-lib.tplvalues.render" -}}
{{- $value := typeIs "string" .value | ternary .value (.value | toYaml) -}}
{{- if contains "{{" (toJson .value) -}}
{{- if .scope -}}
{{- tpl (cat "{{- with $.RelativeScope -}}" $value "{{- end }}") (merge (dict "RelativeScope" .scope) .context) -}}
{{- else -}}
{{- tpl $value .context -}}
{{- end -}}
{{- else -}}
{{- $value -}}
{{- end -}}
{{- end -}}

{{/*
Merges rendered maps, the first winning: (dict "values" (list .Values.a .Values.b) "context" $).
*/}}
{{- define "shared-lib.tplvalues.merge" -}}
{{- $dst := dict -}}
{{- range .values -}}
{{- $dst = include "shared-lib.tplvalues.render" (dict "value" . "context" $.context) | fromYaml | merge $dst -}}
{{- end -}}
{{ $dst | toYaml }}
{{- end -}}
