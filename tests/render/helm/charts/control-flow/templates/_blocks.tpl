{{- define "cf.greeting" -}}
Hello {{ . }}!
{{- end -}}
{{- define "cf.portLine" -}}
{{ .name }}={{ .port }}
{{- end -}}
