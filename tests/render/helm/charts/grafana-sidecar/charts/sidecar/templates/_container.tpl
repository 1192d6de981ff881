{{/*
The sidecar container, for the parent's pod: (dict "Values" .Values.sidecar "Release" .Release).
*/}}
{{- define "sidecar.container" -}}
- name: grafana-sc-dashboard
  image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default "1.26.1" }}"
  env:
    - name: LABEL
      value: {{ .Values.dashboards.label | quote }}
    - name: LABEL_VALUE
      value: {{ .Values.dashboards.labelValue | quote }}
    - name: FOLDER
      value: {{ .Values.dashboards.folder | quote }}
    - name: RESOURCE
      value: configmap
  resources: {{- toYaml .Values.resources | nindent 4 }}
  volumeMounts:
    - name: sc-dashboard-volume
      mountPath: {{ .Values.dashboards.folder | quote }}
{{- end -}}
