{{- define "cf.greeting" -}}
Hello {{ . }}!
{{- end -}}
{{- define "cf.portLine" -}}
{{ .name }}={{ .port }}
{{- end -}}
{{- define "cf.nil" -}}[{{ . }}]{{- end -}}
{{- define "cf.dollar" -}}{{ $.host }}{{- end -}}
