{{- define "vault.fullname" -}}
{{- printf "%s-vault" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "vault.namespace" -}}
{{- .Values.global.namespace | default .Release.Namespace -}}
{{- end -}}

{{- define "vault.scheme" -}}
{{- .Values.global.tlsDisable | ternary "http" "https" -}}
{{- end -}}
