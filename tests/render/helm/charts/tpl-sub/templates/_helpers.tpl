{{/* Used from the subchart's tpl strings too, there with the subchart's context. */}}
{{- define "portal.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
