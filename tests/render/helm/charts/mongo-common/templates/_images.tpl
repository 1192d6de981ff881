{{/* (dict "imageRoot" .Values.image "global" .Values.global): a global registry wins, a digest beats the tag. */}}
{{- define "mongo-common.images.image" -}}
{{- $registry := .imageRoot.registry -}}
{{- with .global -}}
{{- with .imageRegistry -}}
{{- $registry = . -}}
{{- end -}}
{{- end -}}
{{- $ref := printf "%s:%s" .imageRoot.repository (toString .imageRoot.tag) -}}
{{- with .imageRoot.digest -}}
{{- $ref = printf "%s@%s" $.imageRoot.repository . -}}
{{- end -}}
{{- ternary (printf "%s/%s" $registry $ref) $ref (not (empty $registry)) -}}
{{- end -}}
