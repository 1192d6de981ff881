{{- define "p.missing" -}}value=[{{ .nothing }}]{{- end -}}
