{{- define "redis.host" -}}
{{ .Release.Name }}-redis-master
{{- end }}
