{{- define "airflow.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "airflow.image" -}}
{{- printf "%s:%s" .Values.defaultAirflowRepository (.Values.defaultAirflowTag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "airflow.metadataUrl" -}}
{{- $c := .Values.data.metadataConnection -}}
{{- $host := $c.host | default (printf "%s-postgresql" .Release.Name) -}}
{{- printf "%s://%s:%s@%s:%v/%s?sslmode=%s" $c.protocol $c.username $c.password $host (dig "ports" "postgresql" 5432 $c) $c.database (.Values.pgSslMode | default "disable") -}}
{{- end -}}
