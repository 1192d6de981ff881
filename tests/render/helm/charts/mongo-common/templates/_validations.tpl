{{/*
Fails with every message at once: (dict "messages" (list ...) "context" $). Empty messages are skipped.
*/}}
{{- define "mongo-common.validations.fail" -}}
{{- $messages := without .messages "" -}}
{{- if $messages -}}
{{- printf "\nVALUES VALIDATION:\n%s" (join "\n\n" $messages) | fail -}}
{{- end -}}
{{- end -}}

{{/* A message when (index .values .key) is empty: (dict "values" .Values.auth "key" "rootPassword" "path" "auth.rootPassword"). */}}
{{- define "mongo-common.validations.required" -}}
{{- if empty (index .values .key) -}}
{{ .path }}: the value is required; set it with --set {{ .path }}=...
{{- end -}}
{{- end -}}
