{{- define "loki.image" -}}
{{- $registry := .Values.global.image.registry | default .Values.image.registry -}}
{{- printf "%s/%s:%s" $registry .Values.image.repository (.Values.image.tag | toString) -}}
{{- end -}}
