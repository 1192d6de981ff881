{{- define "fluent-bit-loki.image" -}}
{{- $registry := coalesce .Values.global.image.registry .Values.image.registry -}}
{{- printf "%s/%s:%s" $registry .Values.image.repository .Values.image.tag -}}
{{- end -}}

{{- define "fluent-bit-loki.lokiUrl" -}}
{{- $service := .Values.config.loki.serviceName | default (printf "%s-loki" .Release.Name) -}}
{{- printf "http://%s.%s.svc.%s:%v/loki/api/v1/push" $service .Release.Namespace .Values.global.clusterDomain .Values.config.loki.servicePort -}}
{{- end -}}
