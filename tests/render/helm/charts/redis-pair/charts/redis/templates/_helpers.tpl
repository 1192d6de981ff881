{{- define "redis.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "redis.labels" -}}
app.kubernetes.io/name: redis
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component-of: {{ .Chart.Name }}
helm.sh/chart: redis-{{ .Chart.Version }}
{{- end -}}

{{- define "redis.statefulset" -}}
{{- $role := .role -}}
{{- with .context -}}
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ include "redis.fullname" . }}-{{ $role }}
  labels: {{- include "redis.labels" . | nindent 4 }}
    app.kubernetes.io/component: {{ $role }}
spec:
  replicas: {{ eq $role "master" | ternary 1 .Values.replica.replicaCount }}
  serviceName: {{ include "redis.fullname" . }}-headless
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
      app.kubernetes.io/component-of: {{ .Chart.Name }}
      app.kubernetes.io/component: {{ $role }}
  template:
    metadata:
      labels: {{- include "redis.labels" . | nindent 8 }}
        app.kubernetes.io/component: {{ $role }}
    spec:
      containers:
        - name: redis
          image: docker.io/{{ .Values.image.repository }}:{{ .Chart.AppVersion }}
          args: [--port, "6379"{{ if .Values.auth.enabled }}, --requirepass, "$(REDIS_PASSWORD)"{{ end }}{{ if eq $role "replica" }}, --replicaof, {{ include "redis.fullname" . }}-master, "6379"{{ end }}]
  {{- if and (eq $role "master") .Values.master.persistence.enabled }}
  volumeClaimTemplates:
    - metadata:
        name: data
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: {{ .Values.global.storageClass | quote }}
        resources:
          requests:
            storage: {{ .Values.master.persistence.size }}
  {{- end }}
{{- end -}}
{{- end -}}
