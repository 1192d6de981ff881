{{- define "ingress-nginx.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The service a dependency alias renders: (dict "alias" "backend" "context" $). */}}
{{- define "ingress-nginx.aliasService" -}}
{{- printf "%s-%s" .context.Release.Name .alias | trunc 63 | trimSuffix "-" -}}
{{- end -}}
