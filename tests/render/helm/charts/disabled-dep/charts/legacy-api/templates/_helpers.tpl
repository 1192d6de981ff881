{{- define "legacy-api.host" -}}
{{ .Release.Name }}-legacy-api.{{ .Release.Namespace }}.svc
{{- end -}}
