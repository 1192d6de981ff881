{{- define "kafka.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The zookeeper ensemble, when it takes part: its condition if set, else its tag. */}}
{{- define "kafka.zookeeper.enabled" -}}
{{- if hasKey .Values.zookeeper "enabled" -}}
{{- .Values.zookeeper.enabled -}}
{{- else -}}
{{- index .Values.tags "legacy-coordination" -}}
{{- end -}}
{{- end -}}

{{- define "kafka.zookeeper.connect" -}}
{{- $hosts := list -}}
{{- range $i := until (int .Values.zookeeper.replicaCount) -}}
{{- $hosts = append $hosts (printf "%s-zookeeper-%d.%s-zookeeper-headless:2181" $.Release.Name $i $.Release.Name) -}}
{{- end -}}
{{- join "," $hosts -}}
{{- end -}}

{{- define "kafka.quorumVoters" -}}
{{- $voters := list -}}
{{- range $i := until (int .Values.controller.replicaCount) -}}
{{- $voters = append $voters (printf "%d@%s-controller-%d.%s-controller-headless:%v" $i (include "kafka.fullname" $) $i (include "kafka.fullname" $) $.Values.listeners.controller.containerPort) -}}
{{- end -}}
{{- join "," $voters -}}
{{- end -}}
