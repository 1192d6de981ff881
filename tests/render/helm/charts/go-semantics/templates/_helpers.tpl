{{- define "go-semantics.memory" -}}
{{ .memory }}
{{- end -}}
{{- define "go-semantics.deep" -}}
{{ .Values.resources.limits.memory }}
{{- end -}}
{{- define "go-semantics.required" -}}
{{ required "go-semantics needs .Values.password" .Values.password }}
{{- end -}}
