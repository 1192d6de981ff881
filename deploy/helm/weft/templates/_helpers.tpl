{{- define "weft.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "weft.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "weft.labels" -}}
app.kubernetes.io/name: {{ include "weft.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "weft.selectorLabels" -}}
app.kubernetes.io/name: {{ include "weft.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "weft.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "weft.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "weft.postgres" -}}
{{- if .Values.store.postgres.existingSecret -}}true{{- end -}}
{{- end -}}

{{- /*
The namespaces Weft may use in namespaced mode (rbac.scope: namespaced): rbac.namespaces and, with Applications on,
each org's own namespaces (where its Applications live); sorted, each once, as JSON.
*/}}
{{- define "weft.managedNamespaces" -}}
{{- $namespaces := list -}}
{{- range .Values.rbac.namespaces -}}
{{- $namespaces = append $namespaces . -}}
{{- end -}}
{{- if .Values.applications.enabled -}}
{{- range .Values.applications.orgs -}}
{{- range (default (list $.Release.Namespace) .namespaces) -}}
{{- $namespaces = append $namespaces . -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if not $namespaces -}}
{{- fail "rbac.scope namespaced needs rbac.namespaces: the namespaces Weft may watch and deploy to" -}}
{{- end -}}
{{- $namespaces | uniq | sortAlpha | toJson -}}
{{- end -}}
