{{- define "gitlab.gitlab.host" -}}
{{- $suffix := .Values.global.hosts.hostSuffix | default "" -}}
{{- if $suffix -}}
{{- printf "gitlab-%s.%s" $suffix .Values.global.hosts.domain -}}
{{- else -}}
{{- printf "gitlab.%s" .Values.global.hosts.domain -}}
{{- end -}}
{{- end -}}

{{- define "gitlab.gitlab.url" -}}
{{- printf "%s://%s" (.Values.global.hosts.https | ternary "https" "http") (include "gitlab.gitlab.host" .) -}}
{{- end -}}
