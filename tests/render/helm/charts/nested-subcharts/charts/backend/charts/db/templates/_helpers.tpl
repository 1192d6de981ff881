{{- define "db.fullname" -}}
{{ .Release.Name }}-db
{{- end }}
