{{- define "notifier.validate" -}}
{{- $allowed := list "email" "slack" -}}
{{- if not (has .Values.channel $allowed) -}}
{{- fail (printf "notifier.channel must be one of %s, got %q" (join ", " $allowed) .Values.channel) -}}
{{- end -}}
{{- if and (eq .Values.channel "email") (empty .Values.recipients) -}}
{{- fail "notifier.recipients must list at least one address for the email channel" -}}
{{- end -}}
{{- end -}}
