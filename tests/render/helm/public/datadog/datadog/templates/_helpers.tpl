{{/* vim: set filetype=mustache: */}}

{{/*
  Returns node agent version based on image tag. This assumes `agents.image.doNotCheckTag` is false.
*/}}
{{- define "get-agent-version" -}}
{{- $version := .Values.agents.image.tag | toString | trimSuffix "-jmx" -}}
{{- $length := len (split "." $version) -}}
{{- if and (eq $length 1) (eq $version "6") -}}
{{- $version = "6.55.1" -}}
{{- end -}}
{{- if and (eq $length 1) (or (eq $version "7") (eq $version "latest")) -}}
{{- $version = "7.81.1" -}}
{{- end -}}
{{- $version -}}
{{- end -}}

{{/*
  Returns Cluster Agent version based on image tag. This assumes `clusterAgent.image.doNotCheckTag` is false.
*/}}
{{- define "get-cluster-agent-version" -}}
{{- $version := .Values.clusterAgent.image.tag | toString -}}
{{- $length := len (split "." $version) -}}
{{- if and (eq $length 1) (eq $version "latest") -}}
{{- $version = "7.81.1" -}}
{{- end -}}
{{- $version -}}
{{- end -}}

{{/*
  Returns a semver-ish version for discovery defaulting.
  Discovery reuses the chart's existing agent-version resolution for supported tags.
  If that resolution still returns a non-semver-ish value, discovery treats it as latest.
*/}}
{{- define "get-agent-version-for-discovery" -}}
{{- $version := include "get-agent-version" . -}}
{{- if regexMatch "^[0-9]+\\.[0-9]+(\\.[0-9]+)?([-.+][0-9A-Za-z.-]+)?$" $version -}}
{{- $version -}}
{{- else -}}
latest
{{- end -}}
{{- end -}}

{{/*
  Returns true if datadog.discovery.enabled was explicitly set by the user.
*/}}
{{- define "discovery-enabled-explicitly-set" -}}
{{- if not (eq .Values.datadog.discovery.enabled nil) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
  Returns the resolved discovery state.
  Explicit true/false wins. When omitted, discovery is enabled only for Agent >= 7.78.0
  after the chart's agent-version resolution. Non-semver-ish results are treated as latest.
*/}}
{{- define "resolved-discovery-enabled" -}}
{{- if eq (include "discovery-enabled-explicitly-set" .) "true" -}}
{{- .Values.datadog.discovery.enabled -}}
{{- else -}}
  {{- if and .Values.providers.gke.autopilot (eq (include "gke-autopilot-workloadallowlists-enabled" .) "false") -}}
false
  {{- else -}}
  {{- $version := include "get-agent-version-for-discovery" . -}}
  {{- if eq $version "latest" -}}
true
  {{- else if semverCompare ">=7.78.0-0" $version -}}
true
  {{- else -}}
false
  {{- end -}}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
  Returns true if the discovery block should be rendered in system-probe.yaml.
  Explicit values render the block even when set to false so nil vs false is preserved.
*/}}
{{- define "should-render-discovery-config" -}}
{{- if or (eq (include "discovery-enabled-explicitly-set" .) "true") (eq (include "resolved-discovery-enabled" .) "true") .Values.datadog.discovery.serviceMap.enabled -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
  Returns true when discovery should request the system-probe-lite path.
  This only applies on Agent versions that ship system-probe-lite (>= 7.78.0), or
  when the resolved image version is non-semver-ish and treated as latest. Older Agents
  keep discovery enabled without requesting it.
*/}}
{{- define "discovery-use-system-probe-lite" -}}
{{- if ne (include "resolved-discovery-enabled" .) "true" -}}
false
{{- else -}}
{{- $version := include "get-agent-version-for-discovery" . -}}
{{- if eq $version "latest" -}}
true
{{- else if semverCompare ">=7.78.0-0" $version -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "cnm-use-direct-send" -}}
{{- if not .Values.agents.image.doNotCheckTag -}}
{{- if semverCompare ">=7.81.0-0" (include "get-agent-version" .) -}}
true
{{- else -}}
false
{{- end -}}
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if config sync must be enabled for CNM direct send. With direct send, system-probe
submits network payloads itself, and it cannot resolve an ENC[...] api_key because it wires the
no-op secrets component. Config sync is what hands it the value the core agent already resolved.
*/}}
{{- define "should-enable-config-sync-for-direct-send" -}}
{{- if and (eq (include "cnm-use-direct-send" .) "true") (or .Values.datadog.networkMonitoring.enabled .Values.datadog.serviceMonitoring.enabled) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{- define "check-version" -}}
{{- if not .Values.agents.image.doNotCheckTag -}}
{{- $version := (include "get-agent-version" .) -}}
{{- if not (semverCompare "^6.36.0-0 || ^7.36.0-0" $version) -}}
{{- fail "This version of the chart requires an agent image 7.36.0 or greater. If you want to force and skip this check, use `--set agents.image.doNotCheckTag=true`" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "check-dca-version" -}}
{{- if not .Values.clusterAgent.image.doNotCheckTag -}}
{{- $version := include "get-cluster-agent-version" . -}}
{{- if not (semverCompare ">=1.20.0-0" $version) -}}
{{- fail "This version of the chart requires a cluster agent image 1.20.0 or greater. If you want to force and skip this check, use `--set clusterAgent.image.doNotCheckTag=true`" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Check if target cluster is running OpenShift.
*/}}
{{- define "is-openshift" -}}
{{- if .Capabilities.APIVersions.Has "quota.openshift.io/v1/ClusterResourceQuota" -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Check if HorizontalPodAutoscaler v2 is supported (requires Kubernetes >= 1.23.0).
This helper supports FluxCD and other GitOps tools by allowing kubeVersionOverride.

Note: kubeVersionOverride can be used as a workaround when the Helm capabilities API
doesn't reflect the actual cluster version (e.g., in FluxCD helm-controller).
Set it to your cluster's version: --set kubeVersionOverride="1.28.0"
*/}}
{{- define "hpa-autoscaling-v2-supported" -}}
{{- $kubeVersion := .Capabilities.KubeVersion.Version -}}
{{- if .Values.kubeVersionOverride -}}
{{- $kubeVersion = .Values.kubeVersionOverride -}}
{{- end -}}
{{- if semverCompare ">=1.23.0" $kubeVersion -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Check if target cluster supports GKE Autopilot WorkloadAllowlists.
GKE Autopilot WorkloadAllowlists are supported in GKE versions >= 1.32.1-gke.1729000.

Note: HELM_FORCE_RENDER is used for the CI as a workaround to force helm template rendering for GKE Autopilot WorkloadAllowlist-dependent resources
since the helm built-in .Capabilities.APIVersions.Has function requires connecting to the Kubernetes API Server in order to return correct values.
*/}}
{{- define "gke-autopilot-workloadallowlists-enabled" -}}
{{- if and (and .Values.providers .Values.providers.gke.autopilot) (or (and (.Capabilities.APIVersions.Has "auto.gke.io/v1/AllowlistSynchronizer") (.Capabilities.APIVersions.Has "auto.gke.io/v1/WorkloadAllowlist") (semverCompare ">=v1.32.1-gke.1729000" .Capabilities.KubeVersion.Version)) .Values.datadog.envDict.HELM_FORCE_RENDER) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{- define "agent-has-env-ad" -}}
{{- if not .Values.agents.image.doNotCheckTag -}}
{{- $version := (include "get-agent-version" .) -}}
{{- if semverCompare "^6.27.0-0 || ^7.27.0-0" $version -}}
true
{{- else -}}
false
{{- end -}}
{{- else -}}
true
{{- end -}}
{{- end -}}

{{- define "check-cluster-name" }}
{{- $clusterName := tpl .Values.datadog.clusterName . -}}
{{- $length := len $clusterName -}}
{{- if (gt $length 80)}}
{{- fail "Your `clusterName` isn't valid, it must be 80 characters or less." -}}
{{- end}}
{{- if not (regexMatch "^([a-z0-9]([a-z0-9\\-_]*[a-z0-9])?\\.)*([a-z0-9]([a-z0-9\\-_]*[a-z0-9])?)$" $clusterName) -}}
{{- fail "Your `clusterName` isn't valid, it must: \n- contain only lowercase letters, numbers, dots, hyphens and underscores, \n- start with an alphanumeric character, \n- end with an alphanumeric character, and\n- be FQDN-like, without a trailing period." -}}
{{- end -}}
{{- end -}}

{{/*
Expand the name of the chart.
*/}}
{{- define "datadog.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Create a default fully qualified app name.
We truncate at 63 chars because some Kubernetes name fields are limited to this (by the DNS naming spec).
And depending on the resources the name is completed with an extension.
If release name contains chart name it will be used as a full name.
*/}}
{{- define "datadog.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Return the endpoint-config ConfigMap name.
For non-aliased installs (standalone or primary sub-chart), uses the default
<releaseName>-endpoint-config name. For aliased sub-chart instances, prepends
the alias to produce a unique name: <alias>-<releaseName>-endpoint-config.
*/}}
{{- define "datadog.endpointConfigName" -}}
{{- if eq .Chart.Name "datadog" -}}
{{- printf "%s-endpoint-config" .Release.Name -}}
{{- else -}}
{{- printf "%s-%s-endpoint-config" .Chart.Name .Release.Name -}}
{{- end -}}
{{- end -}}

{{/*
Create chart name and version as used by the chart label.
*/}}
{{- define "datadog.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Return true if the DatadogInstrumentation CRD controller should be enabled.
Requires datadog.instrumentationCrd.enabled and both the node Agent and Cluster Agent to be
version 7.82.0 or newer; otherwise falls back to disabled.
*/}}
{{- define "should-enable-instrumentation-crd-controller" -}}
{{- if .Values.datadog.instrumentationCrd.enabled -}}
{{- $agentVersionOK := or .Values.agents.image.doNotCheckTag (semverCompare ">=7.82.0-0" (include "get-agent-version" .)) -}}
{{- $dcaVersionOK := or .Values.clusterAgent.image.doNotCheckTag (semverCompare ">=7.82.0-0" (include "get-cluster-agent-version" .)) -}}
{{- if and $agentVersionOK $dcaVersionOK -}}
true
{{- else -}}
false
{{- end -}}
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the OTelAgent needs to be deployed
*/}}
{{- define "should-enable-otel-agent" -}}
{{- if and .Values.datadog.otelCollector.enabled  (not .Values.providers.gke.gdc) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the Host Profiler needs to be deployed
*/}}
{{- define "should-enable-host-profiler" -}}
{{- if and .Values.datadog.hostProfiler.enabled (eq .Values.targetSystem "linux") (not .Values.providers.gke.gdc) (not .Values.providers.gke.autopilot) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the host-profiler seccomp profile (and its setup init container) should be
applied. Requires the host-profiler to be enabled and the seccomp toggle to not be disabled
(defaults to enabled).
*/}}
{{- define "should-enable-host-profiler-seccomp" -}}
{{- if and (eq (include "should-enable-host-profiler" .) "true") (ne (toString .Values.datadog.hostProfiler.seccomp.enabled) "false") -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return the seccomp profile to apply to the host-profiler container: the hashed localhost
profile when seccomp is enabled, otherwise "unconfined" so the container runs without a
seccomp profile.
*/}}
{{- define "host-profiler-seccomp-profile" -}}
{{- if eq (include "should-enable-host-profiler-seccomp" .) "true" -}}
localhost/{{ include "host-profiler-seccomp-name" . }}
{{- else -}}
unconfined
{{- end -}}
{{- end -}}

{{/*
Return the seccomp profile filename for the host-profiler, scoped to the image ref
to avoid races when multiple host-profiler versions coexist on the same node.
*/}}
{{- define "host-profiler-seccomp-name" -}}
host-profiler-{{ include "ddot-ebpf-image" . | sha256sum | trunc 8 }}{{- if .Values.datadog.hostProfiler.loggingSeccomp }}-logging{{- end }}
{{- end -}}

{{/*
Return true if Agent Data Plane needs to be deployed

This considers both whether or not the Data Plane feature is enabled and whether or not there's at least one
data pipeline enabled
*/}}
{{- define "should-enable-data-plane" -}}
{{- if and .Values.datadog.dataPlane.enabled  (not .Values.providers.gke.gdc) -}}
{{- if and (not .Values.agents.image.doNotCheckTag) (semverCompare "<7.74.0" (include "get-agent-version" .)) -}}
{{- fail "Agent Data Plane requires Datadog Agent 7.74 or newer." -}}
{{- end -}}
{{- if .Values.datadog.dataPlane.dogstatsd.enabled -}}
true
{{- else -}}
{{- fail "One or more data pipelines must be enabled when the Data Plane feature is enabled." -}}
{{- end -}}
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return env var settings for Core Agent when Data Plane feature is enabled
*/}}
{{- define "core-agent-data-plane-env" -}}
# If we're running 7.74.x or earlier, disable DogStatsD explicitly on the Core Agent if ADP has the DSD pipeline
# enabled. If ADP isn't handling DogStatsD, then we don't need to modify the value.
{{- if not (semverCompare "^6.75.0-0 || ^7.75.0-0" (include "get-agent-version" .)) -}}
{{- if .Values.datadog.dataPlane.dogstatsd.enabled }}
- name: DD_USE_DOGSTATSD
  value: "false"
{{- end }}
{{- end }}
- name: DD_DATA_PLANE_DOGSTATSD_ENABLED
  value: {{ .Values.datadog.dataPlane.dogstatsd.enabled | quote }}
{{- end -}}

{{/*
Return true if k8sattributes RBAC rules should be added to the OTel Agent ClusterRole
*/}}
{{- define "should-add-otel-agent-k8sattributes-rules" -}}
{{- $return := false }}
{{- $config := .Values.datadog.otelCollector.config | default "" | fromYaml }}
{{- range $key, $val := $config.processors }}
  {{- if hasPrefix "k8sattributes" $key }}
    {{- if or (empty $val) (empty $val.passthrough) }}
      {{- $return = true }}
    {{- end }}
  {{- end }}
{{- end }}
{{- $return }}
{{- end -}}


{{/*
Return true if k8sattributes RBAC rules should be added to the OTel Agent ClusterRole in Gateway
*/}}
{{- define "should-add-otel-agent-gateway-k8sattributes-rules" -}}
{{- $return := false }}
{{- $config := .Values.otelAgentGateway.config | default "" | fromYaml }}
{{- range $key, $val := $config.processors }}
  {{- if hasPrefix "k8sattributes" $key }}
    {{- if or (empty $val) (empty $val.passthrough) }}
      {{- $return = true }}
    {{- end }}
  {{- end }}
{{- end }}
{{- $return }}
{{- end -}}

{{/*
Return true if conatiner and pod logs volumes should be mounted in the OTel Agent container
*/}}
{{- define "should-mount-logs-for-otel-agent" -}}
{{- $return := false }}
{{- $config := .Values.datadog.otelCollector.config | default "" | fromYaml }}
{{- range $key, $val := $config.receivers }}
  {{- if hasPrefix "filelog" $key }}
    {{- $return = true }}
  {{- end }}
{{- end }}
{{- $return }}
{{- end -}}

{{/*
Return true if container and pod logs volumes should be mounted in the OTel Agent container in Gateway
*/}}
{{- define "should-mount-logs-for-otel-agent-gateway" -}}
{{- $return := false }}
{{- $config := .Values.otelAgentGateway.config | default "" | fromYaml }}
{{- range $key, $val := $config.receivers }}
  {{- if hasPrefix "filelog" $key }}
    {{- $return = true }}
  {{- end }}
{{- end }}
{{- $return }}
{{- end -}}


{{/*
Return secret name to be used based on provided values.
*/}}
{{- define "datadog.apiSecretName" -}}
{{- $fullName := include "datadog.fullname" . -}}
{{- default $fullName .Values.datadog.apiKeyExistingSecret | quote -}}
{{- end -}}

{{/*
Return secret name to be used based on provided values.
*/}}
{{- define "datadog.appKeySecretName" -}}
{{- $fullName := printf "%s-appkey" (include "datadog.fullname" .) -}}
{{- default $fullName .Values.datadog.appKeyExistingSecret | quote -}}
{{- end -}}

{{/*
Return secret name to be used based on provided values.
*/}}
{{- define "clusterAgent.tokenSecretName" -}}
{{- if not .Values.clusterAgent.tokenExistingSecret -}}
{{- include "datadog.fullname" . -}}-cluster-agent
{{- else -}}
{{- .Values.clusterAgent.tokenExistingSecret -}}
{{- end -}}
{{- end -}}

{{/*
Return the appropriate apiVersion for RBAC APIs.
*/}}
{{- define "rbac.apiVersion" -}}
{{- if .Capabilities.APIVersions.Has "rbac.authorization.k8s.io/v1" -}}
"rbac.authorization.k8s.io/v1"
{{- else -}}
"rbac.authorization.k8s.io/v1beta1"
{{- end -}}
{{- end -}}

{{/*
Return the appropriate os label
*/}}
{{- define "label.os" -}}
{{- if semverCompare "^1.14-0" .Capabilities.KubeVersion.GitVersion -}}
kubernetes.io/os
{{- else -}}
beta.kubernetes.io/os
{{- end -}}
{{- end -}}

{{/*
Correct `clusterAgent.metricsProvider.service.port` if Kubernetes <= 1.15
*/}}
{{- define "clusterAgent.metricsProvider.port" -}}
{{- if semverCompare "^1.15-0" .Capabilities.KubeVersion.GitVersion -}}
{{- .Values.clusterAgent.metricsProvider.service.port -}}
{{- else -}}
443
{{- end -}}
{{- end -}}

{{/*
Return the container runtime socket
*/}}
{{- define "datadog.dockerOrCriSocketPath" -}}
{{- if eq .Values.targetSystem "linux" -}}
{{- if .Values.providers.gke.autopilot -}}
/var/run/containerd/containerd.sock
{{- else -}}
{{- .Values.datadog.dockerSocketPath | default .Values.datadog.criSocketPath | default "/var/run/docker.sock" -}}
{{- end -}}
{{- end -}}
{{- if eq .Values.targetSystem "windows" -}}
{{- .Values.datadog.dockerSocketPath | default .Values.datadog.criSocketPath | default `\\.\pipe\docker_engine` -}}
{{- end -}}
{{- end -}}

{{/*
Return agent log directory path
*/}}
{{- define "datadog.logDirectoryPath" -}}
{{- if eq .Values.targetSystem "linux" -}}
/var/log/datadog
{{- end -}}
{{- if eq .Values.targetSystem "windows" -}}
C:/ProgramData/Datadog/logs
{{- end -}}
{{- end -}}

{{/*
Return agent config path
*/}}
{{- define "datadog.confPath" -}}
{{- if eq .Values.targetSystem "linux" -}}
/etc/datadog-agent
{{- end -}}
{{- if eq .Values.targetSystem "windows" -}}
C:/ProgramData/Datadog
{{- end -}}
{{- end -}}

{{/*
Return agent config path
*/}}
{{- define "datadog.otelconfPath" -}}
{{- if eq .Values.targetSystem "linux" -}}
/etc/otel-agent
{{- end -}}
{{- if eq .Values.targetSystem "windows" -}}
C:/ProgramData/Datadog
{{- end -}}
{{- end -}}


{{/*
Return agent host mount root
*/}}
{{- define "datadog.hostMountRoot" -}}
{{- if .Values.providers.gke.autopilot -}}
/var/autopilot/addon/datadog
{{- else if .Values.providers.gke.gdc -}}
/var/datadog
{{- else -}}
/var/lib/datadog-agent
{{- end -}}
{{- end -}}

{{/*
Return true if we are installing on a GKE cluster without RBAC setup (versions older than GKE R26)
*/}}
{{- define "is-gke-without-external-metrics" -}}
{{- if contains "-gke." .Capabilities.KubeVersion.GitVersion -}}
{{- if semverCompare ">=1.17.9-gke.600 || >=1.16.13-gke.1" .Capabilities.KubeVersion.GitVersion -}}
false
{{- else -}}
true
{{- end -}}
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Returns probe definition based on user settings and default HTTP port.
Accepts a map with `port` (default port), `path` (probe handler URI) and `settings` (probe settings).
*/}}
{{- define "probe.http" -}}
{{- if or .settings.httpGet .settings.tcpSocket .settings.exec -}}
{{ toYaml .settings }}
{{- else -}}
{{- $handler := dict "httpGet" (dict "port" .port "path" .path "scheme" "HTTP") -}}
{{ toYaml (merge $handler .settings) }}
{{- end -}}
{{- end -}}

{{/*
Returns probe definition based on user settings and default TCP socket port.
Accepts a map with `port` (default port) and `settings` (probe settings).
*/}}
{{- define "probe.tcp" -}}
{{- if or .settings.httpGet .settings.tcpSocket .settings.exec -}}
{{ toYaml .settings }}
{{- else -}}
{{- $handler := dict "tcpSocket" (dict "port" .port) -}}
{{- toYaml (merge $handler .settings) -}}
{{- end -}}
{{- end -}}

{{/*
Return the proper registry based on datadog.site (requires .Values to be passed as .)
*/}}
{{- define "registry" -}}
{{- $site := default "datadoghq.com" .datadog.site -}}
{{- $migrationMode := default "" .registryMigrationMode -}}
{{- if and (ne $migrationMode "") (ne $migrationMode "auto") (ne $migrationMode "all") -}}
{{- fail (printf "Invalid registryMigrationMode %q: must be \"auto\", \"all\", or \"\"" $migrationMode) -}}
{{- end -}}
{{- if .registry -}}
{{- .registry -}}
{{- else if eq $site "ddog-gov.com" -}}
public.ecr.aws/datadog
{{- else if and (eq $site "us3.datadoghq.com") (not .providers.gke.autopilot) (not .providers.gke.gdc) -}}
datadoghq.azurecr.io
{{- else -}}
{{- $migratedSite := or (eq $migrationMode "auto") (eq $migrationMode "all") -}}
{{- if and $migratedSite (not (or .providers.gke.autopilot .providers.gke.gdc)) -}}
registry.datadoghq.com
{{- else if eq $site "datadoghq.eu" -}}
eu.gcr.io/datadoghq
{{- else if eq $site "ap1.datadoghq.com" -}}
asia.gcr.io/datadoghq
{{- else -}}
gcr.io/datadoghq
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Return a remote image path based on `.Values` (passed as root) and `.` (any `.image` from `.Values` passed as parameter)
*/}}
{{- define "image-path" -}}
{{- if .image.digest -}}
{{- if .image.repository -}}
{{- .image.repository -}}@{{ .image.digest }}
{{- else -}}
{{ include "registry" .root }}/{{ .image.name }}@{{ .image.digest }}
{{- end -}}
{{- else -}}
{{- $tagSuffix := "" -}}
{{- if (eq (include "use-fips-images" .root) "true") -}}
{{- $tagSuffix = printf "-%s" "fips" -}}
{{- end -}}
{{- if .image.tagSuffix -}}
{{- $tagSuffix = printf "%s-%s" $tagSuffix .image.tagSuffix -}}
{{- end -}}
{{/* Guard: -fips-full images are only available from 7.78.0 */}}
{{- if and (eq $tagSuffix "-fips-full") (not .root.agents.image.doNotCheckTag) (semverCompare "<7.78.0" (include "get-agent-version" (dict "Values" .root))) -}}
{{- fail "The FIPS variant of the -full agent image is not available before 7.78.0. Upgrade agents.image.tag to 7.78.0+, set useFIPSAgent to false, or set agents.image.doNotCheckTag to true." -}}
{{- end -}}
{{- if .image.repository -}}
{{- .image.repository -}}:{{ .image.tag }}{{ $tagSuffix }}
{{- else -}}
{{ include "registry" .root }}/{{ .image.name }}:{{ .image.tag }}{{ $tagSuffix }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Return a remote otel-agent based on `.Values` (passed as .)
*/}}
{{- define "ddot-collector-image" -}}
  {{- if .Values.datadog.otelCollector.useStandaloneImage -}}
    {{/*
    Edge case: Setting `7.X.Y-full` in `agents.image.tag` is not recommended, but is supported, for versions < 7.67.0
    */}}
    {{- $agentTag := .Values.agents.image.tag | toString -}}
    {{- if hasSuffix "-full" $agentTag -}}
      {{- $cleanVersion := $agentTag | trimSuffix "-full" -}}
      {{- if semverCompare "<7.67.0" $cleanVersion -}}
        {{ include "image-path" (dict "root" .Values "image" .Values.agents.image) }}
      {{- else -}}
        {{- fail "Setting `7.X.Y-full` in `agents.image.tag` with `datadog.otelCollector.useStandaloneImage=true` is not supported for agent versions >= 7.67.0. Options: (1) Remove the `-full` suffix from `agents.image.tag`, or (2) Set `datadog.otelCollector.useStandaloneImage=false`." -}}
      {{- end -}}
    {{- else -}}
      {{/*
      In the normal case, we should use the standalone image for Agent 7.67.0+ or error out
      */}}
      {{- if semverCompare "<7.67.0" (include "get-agent-version" .) -}}
        {{- fail "datadog.otelCollector.useStandaloneImage is only supported for agent versions 7.67.0+. Please bump the agent version to 7.67.0+ or set datadog.otelCollector.useStandaloneImage to false and set agents.image.tagSuffix to `-full`" -}}
      {{- end -}}
      {{- $ddotTag := include "get-agent-version" . -}}
      {{- if eq (.Values.agents.image.tag | toString | trimSuffix "-jmx") "latest" -}}
        {{- $ddotTag = "latest" -}}
      {{- end -}}
      {{- $ddotImage := dict "name" "ddot-collector" "tag" $ddotTag -}}
      {{- if and (eq (include "use-fips-images" .Values) "true") (not .Values.agents.image.doNotCheckTag) (semverCompare "<7.78.0" (include "get-agent-version" .)) -}}
        {{- fail "The standalone FIPS ddot-collector image is not available before 7.78.0. Upgrade agents.image.tag to 7.78.0+, set useFIPSAgent to false, or set agents.image.doNotCheckTag to true." -}}
      {{- else -}}
        {{ include "image-path" (dict "root" .Values "image" $ddotImage) }}
      {{- end -}}
    {{- end -}}
  {{- else -}}
    {{ include "image-path" (dict "root" .Values "image" .Values.agents.image) }}
  {{- end -}}
{{- end -}}

{{/*
Return the ddot-ebpf image path (only available in Docker Hub)
*/}}
{{- define "ddot-ebpf-image" -}}
{{- if .Values.datadog.hostProfiler.image -}}
{{ .Values.datadog.hostProfiler.image }}
{{- else -}}
datadog/ddot-ebpf-dev:nightly-latest
{{- end -}}
{{- end -}}

{{/*
Return the image for the otel-agent in gateway based on `.Values` (passed as .)
*/}}
{{- define "ddot-collector-gateway-image" -}}
  {{- $imageTag := .Values.otelAgentGateway.image.tag -}}
  {{- if not $imageTag -}}
    {{- $imageTag = include "get-agent-version" . -}}
  {{- end -}}
  {{- if not .Values.otelAgentGateway.image.doNotCheckTag -}}
    {{- $imageTag = $imageTag | toString -}}
    {{- if or (hasSuffix "-full" $imageTag) (eq .Values.otelAgentGateway.image.tagSuffix "full") -}}
      {{- fail "`-full` image is not supported in otel agent gateway" -}}
    {{- end -}}
    {{- if semverCompare "<7.67.0" $imageTag -}}
      {{- fail "Agent version 7.67.0 and before are not supported in otel agent gateway" -}}
    {{- end -}}
  {{- end -}}
  {{- $image := merge (dict "tag" $imageTag) .Values.otelAgentGateway.image -}}
  {{- if and (eq (include "use-fips-images" .Values) "true") (not .Values.otelAgentGateway.image.doNotCheckTag) (semverCompare "<7.78.0" $imageTag) -}}
    {{- fail "The standalone FIPS ddot-collector gateway image is not available before 7.78.0. Upgrade agents.image.tag (or otelAgentGateway.image.tag) to 7.78.0+, set useFIPSAgent to false, or set otelAgentGateway.image.doNotCheckTag to true." -}}
  {{- else -}}
    {{ include "image-path" (dict "root" .Values "image" $image) }}
  {{- end -}}
{{- end -}}

{{/*
Return true if a system-probe feature is enabled.
*/}}
{{- define "system-probe-feature" -}}
{{- if or .Values.datadog.securityAgent.runtime.enabled .Values.datadog.networkMonitoring.enabled .Values.datadog.systemProbe.enableTCPQueueLength .Values.datadog.systemProbe.enableOOMKill .Values.datadog.serviceMonitoring.enabled .Values.datadog.traceroute.enabled (eq (include "resolved-discovery-enabled" .) "true") .Values.datadog.discovery.serviceMap.enabled (and .Values.datadog.gpuMonitoring.enabled .Values.datadog.gpuMonitoring.privilegedMode) .Values.datadog.dynamicInstrumentationGo.enabled (and .Values.datadog.securityAgent.compliance.enabled .Values.datadog.securityAgent.compliance.runInSystemProbe) (eq (include "should-enable-sbom-enrichment-usage" .) "true") -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the system-probe container should be created.
*/}}
{{- define "should-enable-system-probe" -}}
{{- if and (eq (include "system-probe-feature" .) "true") (eq .Values.targetSystem "linux") -}}
  {{- if or (not .Values.providers.gke.gdc) (and .Values.providers.gke.autopilot (eq (include "gke-autopilot-workloadallowlists-enabled" .) "true")) -}}
true
{{- else -}}
false
{{- end -}}
{{- else -}}
false
{{- end -}}
{{- end -}}


{{/*
Return true if a security-agent feature is enabled.
*/}}
{{- define "security-agent-feature" -}}
{{- if or (and .Values.datadog.securityAgent.compliance.enabled (not .Values.datadog.securityAgent.compliance.runInSystemProbe)) (eq (include "should-enable-security-agent-cws-integration" .) "true") -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if we should use the -fips image tags.
*/}}
{{- define "use-fips-images" -}}
{{- if .useFIPSAgent -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the fips side car container should be created.
*/}}
{{- define "should-enable-fips-proxy" -}}
{{- if and (not (or (eq (include "use-fips-images" .Values) "true") (or .Values.providers.gke.autopilot .Values.providers.gke.gdc ))) (eq .Values.targetSystem "linux") .Values.fips.enabled -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the fips side car configMap should be mounted.
*/}}
{{- define "should-mount-fips-configmap" -}}
{{- if and (eq (include "should-enable-fips-proxy" .) "true") (not (empty .Values.fips.customFipsConfig)) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the security-agent container should be created.
*/}}
{{- define "should-enable-security-agent" -}}
{{- if and (not .Values.providers.gke.gdc ) (eq .Values.targetSystem "linux") (eq (include "security-agent-feature" .) "true") -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the compliance features should be enabled.
*/}}
{{- define "should-enable-compliance" -}}
{{- if and (not (or .Values.providers.gke.autopilot .Values.providers.gke.gdc )) (eq .Values.targetSystem "linux") .Values.datadog.securityAgent.compliance.enabled (not .Values.datadog.securityAgent.compliance.runInSystemProbe) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the runtime security features should be enabled.
*/}}
{{- define "should-enable-runtime-security" -}}
{{- if and (not .Values.providers.gke.gdc) .Values.datadog.securityAgent.runtime.enabled -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if security-agent should handle CWS integration.
This considers both runtime security features AND whether direct send from system-probe is enabled.
*/}}
{{- define "should-enable-security-agent-cws-integration" -}}
{{- if and .Values.datadog.securityAgent.runtime.enabled (not .Values.datadog.securityAgent.runtime.directSendFromSystemProbe) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the hostPid features should be enabled for the Agent pod.
*/}}
{{- define "should-enable-host-pid" -}}
{{- if eq .Values.targetSystem "windows" -}}
false
{{- else if and (not .Values.providers.gke.gdc) (or (eq  (include "should-enable-compliance" .) "true") (eq (include "should-enable-host-profiler" .) "true") .Values.datadog.dogstatsd.useHostPID .Values.datadog.useHostPID (eq (include "should-enable-sbom-enrichment-usage" .) "true")) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return the volume name for /opt/datadog-agent/run.
*/}}
{{- define "datadog.agentRunVolumeName" -}}
{{- if and .Values.providers.gke.autopilot (eq (include "gke-autopilot-workloadallowlists-enabled" .) "true") -}}
datadogrun
{{- else if or .Values.datadog.logs.enabled .Values.datadog.logsEnabled .Values.providers.gke.autopilot .Values.providers.gke.gdc -}}
pointerdir
{{- else -}}
datadogrun
{{- end -}}
{{- end -}}

{{/*
Return true if .Values.existingClusterAgent is fully configured
*/}}
{{- define "existingClusterAgent-configured" -}}
{{- if and .Values.existingClusterAgent.join .Values.existingClusterAgent.serviceName .Values.existingClusterAgent.tokenSecretName -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the ClusterAgent is enabled
*/}}
{{- define "cluster-agent-enabled" -}}
{{- if or (eq (include "existingClusterAgent-configured" .) "true") .Values.clusterAgent.enabled -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}


{{/*
Return true if the ClusterAgent needs to be deployed
*/}}
{{- define "should-deploy-cluster-agent" -}}
{{- if and .Values.clusterAgent.enabled (not .Values.existingClusterAgent.join) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}


{{/*
Return true if a trace-agent needs to be deployed.
*/}}
{{- define "should-enable-trace-agent" -}}
{{- if or (eq  (include "trace-agent-use-tcp-port" .) "true") (eq  (include "trace-agent-use-uds" .) "true") (eq (include "trace-agent-use-local-service" .) "true") -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true hostPath should be use for DSD socket. Return always false on GKE Autopilot in case CSI driver is not enabled, and on GDC.
*/}}
{{- define "should-mount-hostPath-for-dsd-socket" -}}
{{- if or (and .Values.providers.gke.autopilot (not .Values.datadog.csi.enabled)) .Values.providers.gke.gdc (eq .Values.targetSystem "windows") -}}
false
{{- end -}}
{{- if .Values.datadog.dogstatsd.useSocketVolume -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if a APM over UDS is configured. Return always false on GKE Autopilot or Google Distributed Cloud.
*/}}
{{- define "trace-agent-use-uds" -}}
{{- if or (and .Values.providers.gke.autopilot (not .Values.datadog.csi.enabled)) .Values.providers.gke.gdc (eq .Values.targetSystem "windows") -}}
false
{{- end -}}
{{- if and (or .Values.datadog.apm.socketEnabled .Values.datadog.apm.useSocketVolume) (not .Values.providers.gke.gdc) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if APM is configured to only use local service via the trace-agent's containerPort otherwise matches datadog.apm.portEnabled.
*/}}
{{- define "trace-agent-use-local-service" -}}
{{- default (include "trace-agent-use-host-port" .) .Values.datadog.apm.useLocalService -}}
{{- end -}}


{{/*
Return true if a host port is desired for APM.
*/}}
{{- define "trace-agent-use-host-port" -}}
{{- if or .Values.datadog.apm.portEnabled .Values.datadog.apm.enabled -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if trace-loader should be used for the trace-agent container.
trace-loader is available in agent versions >= 7.75.0.
trace-loader is not supported on GKE Autopilot.
*/}}
{{- define "use-trace-loader" -}}
{{- if .Values.providers.gke.autopilot -}}
false
{{- else if not .Values.agents.image.doNotCheckTag -}}
{{- $version := (include "get-agent-version" .) -}}
{{- if semverCompare ">=7.75.0-0" $version -}}
true
{{- else -}}
false
{{- end -}}
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if a traffic over TCP is configured for APM.
*/}}
{{- define "trace-agent-use-tcp-port" -}}
{{- if or (eq  (include "trace-agent-use-host-port" .) "true") (eq  (include "trace-agent-use-local-service" .) "true") -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if Kubernetes resource monitoring (orchestrator explorer) should be enabled.
*/}}
{{- define "should-enable-k8s-resource-monitoring" -}}
{{- if and .Values.datadog.orchestratorExplorer.enabled (or .Values.clusterAgent.enabled (eq (include "existingClusterAgent-configured" .) "true")) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if the Cluster Check Workers have to be deployed
*/}}
{{- define "should-enable-cluster-check-workers" -}}
{{- if or .Values.datadog.kubeStateMetricsCore.useClusterCheckRunners .Values.datadog.orchestratorExplorer.useClusterCheckRunners (and .Values.datadog.clusterChecks.enabled .Values.clusterChecksRunner.enabled) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Returns provider kind
*/}}
{{- define "provider-kind" -}}
{{- if .Values.providers.gke.autopilot -}}
gke-autopilot
{{- end -}}
{{- if .Values.providers.gke.gdc -}}
gke-gdc
{{- end -}}
{{- end -}}

{{/*
Return the service account name
*/}}
{{- define "agents.serviceAccountName" -}}
{{- if .Values.providers.gke.autopilot -}}
datadog-agent
{{- else if .Values.agents.rbac.create -}}
{{ template "datadog.fullname" . }}
{{- else -}}
{{ .Values.agents.rbac.serviceAccountName }}
{{- end -}}
{{- end -}}

{{- define "agents-useConfigMap-configmap-name" -}}
{{- if .Values.providers.gke.autopilot -}}
datadog-agent-datadog-yaml
{{- else -}}
{{ template "datadog.fullname" . }}-datadog-yaml
{{- end -}}
{{- end -}}

{{- define "agents-install-info-configmap-name" -}}
{{- if .Values.providers.gke.autopilot -}}
datadog-agent-installinfo
{{- else -}}
{{ template "datadog.fullname" . }}-installinfo
{{- end -}}
{{- end -}}

{{- define "agents.confd-configmap-name" -}}
{{- if .Values.providers.gke.autopilot -}}
datadog-agent-confd
{{- else -}}
{{ template "datadog.fullname" . }}-confd
{{- end -}}
{{- end -}}

{{- define "datadog-checksd-configmap-name" -}}
{{- if .Values.providers.gke.autopilot -}}
datadog-agent-checksd
{{- else -}}
{{ template "datadog.fullname" . }}-checksd
{{- end -}}
{{- end -}}

{{- define "fips-useConfigMap-configmap-name" -}}
{{- if .Values.providers.gke.autopilot -}}
datadog-agent-fips-config
{{- else -}}
{{ template "datadog.fullname" . }}-fips-config
{{- end -}}
{{- end -}}

{{- define "agents-install-otel-configmap-name" -}}
{{ template "datadog.fullname" . }}-otel-config
{{- end -}}

{{- define "agents-install-otel-gateway-configmap-name" -}}
{{ template "datadog.fullname" . }}-otel-gateway-config
{{- end -}}

{{/*
Recursively trim all trailing hyphens from a string
*/}}
{{- define "trim-trailing-hyphens" -}}
{{- if hasSuffix "-" . -}}
{{- include "trim-trailing-hyphens" (trimSuffix "-" .) -}}
{{- else -}}
{{- . -}}
{{- end -}}
{{- end -}}

{{/*
Build part-of label
*/}}
{{- define "part-of-label" -}}
{{- $ns := .Release.Namespace | replace "-" "--" -}}
{{- $name := include "datadog.fullname" . | replace "-" "--" -}}
{{- include "trim-trailing-hyphens" (printf "%s-%s" $ns $name | trunc 63) -}}
{{- end }}

{{/*
Common agent, cluster-agent, and cluster-checks-runner workload template labels.
Per-workload `instanceLabelOverride` overrides the `app.kubernetes.io/instance`
value (restored from pre-3.140.0 for callers that pin on the previous label, e.g.
NetworkPolicies).
*/}}
{{- define "datadog.pod-template-labels" }}
{{- $ctx := index . 0 }}
{{- $name := index . 1 }}
{{- $instance := printf "%s-%s" (include "datadog.fullname" $ctx) $name }}
{{- if and (eq $name "agent") $ctx.Values.agents.instanceLabelOverride }}{{- $instance = $ctx.Values.agents.instanceLabelOverride }}{{- end }}
{{- if and (eq $name "cluster-agent") $ctx.Values.clusterAgent.instanceLabelOverride }}{{- $instance = $ctx.Values.clusterAgent.instanceLabelOverride }}{{- end }}
{{- if and (eq $name "cluster-checks-runner") $ctx.Values.clusterChecksRunner.instanceLabelOverride }}{{- $instance = $ctx.Values.clusterChecksRunner.instanceLabelOverride }}{{- end }}
app.kubernetes.io/name: "{{ template "datadog.fullname" $ctx }}"
app.kubernetes.io/instance: {{ $instance | quote }}
app.kubernetes.io/managed-by: {{ $ctx.Release.Service }}
app.kubernetes.io/part-of: {{ include "part-of-label" $ctx }}
{{- end }}

{{/*
Common agent, cluster-agent, and cluster-checks-runner workload labels
*/}}
{{- define "datadog.workload-labels" -}}
{{- $ctx := index . 0 -}}
{{- $name := index . 1 -}}
helm.sh/chart: '{{ include "datadog.chart" $ctx -}}'
{{- include "datadog.pod-template-labels" (list $ctx $name) }}
{{- if $ctx.Chart.AppVersion }}
app.kubernetes.io/version: {{ $ctx.Chart.AppVersion | quote }}
{{- end -}}
{{- if $ctx.Values.commonLabels }}
{{ toYaml $ctx.Values.commonLabels -}}
{{- end }}
{{- end }}

{{/*
Common template labels
*/}}
{{- define "datadog.template-labels" -}}
app.kubernetes.io/name: "{{ template "datadog.fullname" . }}"
app.kubernetes.io/instance: {{ .Release.Name | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
Common labels
*/}}
{{- define "datadog.labels" -}}
helm.sh/chart: '{{ include "datadog.chart" . }}'
{{ include "datadog.template-labels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
{{- if .Values.commonLabels}}
{{ toYaml .Values.commonLabels }}
{{- end }}
{{- end -}}

{{/*
Returns provider-specific labels if any
*/}}
{{- define "provider-labels" -}}
{{- if include "provider-kind" . -}}
env.datadoghq.com/kind: {{ include "provider-kind" . }}
{{- end -}}
{{- end -}}

{{/*
Returns provider-specific env vars if any
*/}}
{{- define "provider-env" -}}
{{- if include "provider-kind" . -}}
- name: DD_PROVIDER_KIND
  value: {{ include "provider-kind" . }}
{{- end -}}
{{- end -}}

{{/*
Return Kubelet CA path inside Agent containers
*/}}
{{- define "datadog.kubelet.mountPath" -}}
{{- if .Values.datadog.kubelet.agentCAPath -}}
{{- .Values.datadog.kubelet.agentCAPath -}}
{{- else if .Values.datadog.kubelet.hostCAPath -}}
{{- if eq .Values.targetSystem "windows" -}}
C:/var/kubelet-ca/{{ base .Values.datadog.kubelet.hostCAPath }}
{{- else -}}
/var/run/kubelet-ca/{{ base .Values.datadog.kubelet.hostCAPath }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Return Kubelet volumeMount
*/}}
{{- define "datadog.kubelet.volumeMount" -}}
- name: kubelet-ca
  {{- if eq .Values.targetSystem "linux" }}
  mountPath: {{ include "datadog.kubelet.mountPath" . }}
  {{- end }}
  {{- if eq .Values.targetSystem "windows" }}
  mountPath: {{ dir (include "datadog.kubelet.mountPath" .) }}
  {{- end }}
  readOnly: true
{{- end -}}

{{/*
Return true if the Cluster Agent needs a confd configmap
*/}}
{{- define "need-cluster-agent-confd" -}}
{{- if (or (.Values.clusterAgent.confd) (.Values.datadog.kubeStateMetricsCore.enabled) (.Values.clusterAgent.advancedConfd) (.Values.datadog.helmCheck.enabled) (.Values.datadog.collectEvents) (.Values.clusterAgent.kubernetesApiserverCheck.disableUseComponentStatus) (eq (include "orchestratorExplorer-add-custom-orchestrator-explorer-config" .) "true")) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if kubernetes_apiserver check should be configured
*/}}
{{- define  "need-kubernetes-apiserver-check-config" -}}
{{- if or (.Values.datadog.collectEvents) (.Values.clusterAgent.kubernetesApiserverCheck.disableUseComponentStatus) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if we can enable Service Internal Traffic Policy
*/}}
{{- define "enable-service-internal-traffic-policy" -}}
{{- if and .Values.agents.enabled (or (semverCompare "^1.22-0" .Capabilities.KubeVersion.GitVersion) .Values.agents.localService.forceLocalServiceEnabled) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return the local service name
*/}}
{{- define "localService.name" -}}
{{- if ne .Values.agents.localService.overrideName "" }}
{{- .Values.agents.localService.overrideName -}}
{{- else -}}
{{ template "datadog.fullname" . }}
{{- end -}}
{{- end -}}

{{/*
Return true if runtime compilation is enabled in the system-probe
*/}}
{{- define "runtime-compilation-enabled" -}}
{{- if .Values.providers.talos.enabled -}}
{{- /* Talos does not support runtime compilation */ -}}
false
{{- else if or .Values.datadog.systemProbe.enableTCPQueueLength .Values.datadog.systemProbe.enableOOMKill .Values.datadog.serviceMonitoring.enabled (and (eq (include "resolved-discovery-enabled" .) "true") .Values.datadog.discovery.networkStats.enabled) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Return true if secret RBACs are needed for secret backend.
*/}}
{{- define "need-secret-permissions" -}}
{{- if .Values.datadog.secretBackend.enableGlobalPermissions -}}
{{- if or (and .Values.datadog.secretBackend.command (eq .Values.datadog.secretBackend.command "/readsecret_multiple_providers.sh")) .Values.datadog.secretBackend.type -}}
true
{{- end -}}
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Returns env vars correctly quoted and valueFrom respected
*/}}
{{- define "additional-env-entries" -}}
{{- if . -}}
{{- range . }}
{{- if not .name }}
{{- fail "env var entry must have a 'name' field" }}
{{- end }}
- name: {{ .name }}
{{- if .value }}
  value: {{ .value | quote }}
{{- else }}
  valueFrom:
{{ toYaml .valueFrom | indent 4 }}
{{- end }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Returns env vars correctly quoted and valueFrom respected, defined in a dict
*/}}
{{- define "additional-env-dict-entries" -}}
{{- range $key, $value := . }}
- name: {{ $key }}
{{- if kindIs "map" $value }}
{{ toYaml $value | indent 2 }}
{{- else }}
  value: {{ $value | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Return the appropriate apiVersion for PodDisruptionBudget policy APIs.
*/}}
{{- define "policy.poddisruptionbudget.apiVersion" -}}
{{- if or (.Capabilities.APIVersions.Has "policy/v1/PodDisruptionBudget") (semverCompare ">=1.21" .Capabilities.KubeVersion.Version) -}}
"policy/v1"
{{- else -}}
"policy/v1beta1"
{{- end -}}
{{- end -}}

{{/*
Returns securityContext depending of the OS
*/}}
{{- define "generate-security-context" -}}
{{- if eq .targetSystem "windows" -}}
  {{- if and .securityContext .securityContext.windowsOptions }}
securityContext:
  windowsOptions:
    {{ toYaml .securityContext.windowsOptions }}
  {{- end -}}
{{- else }}
{{- if or .securityContext .sysAdmin .mknod (and .seccomp .kubeversion (semverCompare ">=1.19.0" .kubeversion)) (and .apparmor .kubeversion (semverCompare ">=1.30.0" .kubeversion)) -}}
  {{- /* Define default values for the added capabilities and securityContext */ -}}
  {{- $addedCapabilities := list -}}
  {{- $securityContext := dict -}}
  {{- if .securityContext -}}
    {{- $securityContext = .securityContext -}}
    {{- $addedCapabilities = (.securityContext.capabilities | default dict).add | default list -}}
  {{- end -}}
  {{- /* Add conditional capabilities */ -}}
  {{ if .sysAdmin -}}
    {{- $addedCapabilities = append $addedCapabilities "SYS_ADMIN" -}}
  {{- end -}}
  {{- if .mknod -}}
    {{- $addedCapabilities = append $addedCapabilities "MKNOD" -}}
  {{- end -}}
  {{- if .kill -}}
    {{- $addedCapabilities = append $addedCapabilities "KILL" -}}
  {{- end -}}
  {{- /* Merge the added capabilities with the securityContext, only if we have something to add */ -}}
  {{- if $addedCapabilities -}}
    {{- $capabilities := dict "capabilities" (dict "add" $addedCapabilities) -}}
    {{- $securityContext = merge $capabilities $securityContext -}}
  {{- end -}}
securityContext:
{{- if not (empty $securityContext) }}
{{ toYaml $securityContext | indent 2 }}
{{- end }}
{{- if and .seccomp .kubeversion (semverCompare ">=1.19.0-0" .kubeversion) }}
  seccompProfile:
    {{- if hasPrefix "localhost/" .seccomp }}
    type: Localhost
    {{- else if eq "runtime/default" .seccomp }}
    type: RuntimeDefault
    {{- else }}
    type: Unconfined
    {{- end -}}
    {{- if hasPrefix "localhost/" .seccomp }}
    localhostProfile: {{ trimPrefix "localhost/" .seccomp }}
    {{- end }}
{{- end -}}
{{- if and .apparmor .kubeversion (semverCompare ">=1.30.0-0" .kubeversion) }}
  appArmorProfile:
    {{- if hasPrefix "localhost/" .apparmor }}
    type: Localhost
    {{- else if eq "runtime/default" .apparmor }}
    type: RuntimeDefault
    {{- else }}
    type: Unconfined
    {{- end -}}
    {{- if hasPrefix "localhost/" .apparmor }}
    localhostProfile: {{ trimPrefix "localhost/" .apparmor }}
    {{- end }}
{{- end -}}
{{- end -}}{{- /* or securityContext... */ -}}
{{- end -}}{{- /* targetSystem == "linux" */ -}}
{{- end -}}

{{/*
Verifies the OTLP/gRPC endpoint prefix.
gRPC supports several naming schemes: https://github.com/grpc/grpc/blob/master/doc/naming.md
The Datadog Agent Helm Chart currently only supports 'host:port' (usually '0.0.0.0:port').
*/}}
{{- define "verify-otlp-grpc-endpoint-prefix" -}}
{{- if hasPrefix "unix:" . }}
{{ fail "'unix' protocol is not currently supported on OTLP/gRPC endpoint" }}
{{- end }}
{{- if hasPrefix "unix-abstract:" . }}
{{ fail "'unix-abstract' protocol is not currently supported on OTLP/gRPC endpoint" }}
{{- end }}
{{- end -}}

{{/*
Verifies that an OTLP endpoint has a port explicitly set.
*/}}
{{- define "verify-otlp-endpoint-port" -}}
{{- if not ( regexMatch ":[0-9]+$" . ) }}
{{ fail "port must be set explicitly on OTLP endpoints" }}
{{- end }}
{{- end -}}

{{/*
Returns the flag used to specify the config file for the process-agent.
In 7.36, `--config` was deprecated and `--cfgpath` should be used instead.
*/}}
{{- define "process-agent-config-file-flag" -}}
{{- if  .Values.providers.gke.autopilot -}}
-config
{{- else if not .Values.agents.image.doNotCheckTag -}}
{{- $version := .Values.agents.image.tag | toString | trimSuffix "-jmx" -}}
{{- $length := len (split "." $version ) -}}
{{- if and (gt $length 1) (not (semverCompare "^6.36.0 || ^7.36.0" $version)) -}}
--config
{{- else -}}
--cfgpath
{{- end -}}
{{- else -}}
--config
{{- end -}}
{{- end -}}

{{/*
Returns whether or not the underlying OS is Google Container-Optimized-OS
Note: GKE Autopilot only use COS (see https://cloud.google.com/kubernetes-engine/docs/concepts/node-images)
*/}}
{{- define "can-mount-host-usr-src" -}}
{{- /* Flatcar mounts /usr read-only, so the /usr/src hostPath can't be mounted (as on GKE COS/Autopilot). */ -}}
{{- if or .Values.providers.gke.autopilot .Values.providers.gke.cos .Values.providers.flatcar.enabled -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Returns whether Remote Configuration should be enabled in the agent
*/}}
{{- define "datadog-remoteConfiguration-enabled" -}}
{{- if and (.Values.remoteConfiguration.enabled) (or (.Values.datadog.remoteConfiguration.enabled) (.Values.datadog.privateActionRunner.enabled)) (not .Values.providers.gke.gdc) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Returns whether Remote Configuration should be enabled in the cluster agent
*/}}
{{- define "clusterAgent-remoteConfiguration-enabled" -}}
{{- if and .Values.remoteConfiguration.enabled (or .Values.clusterAgent.admissionController.remoteInstrumentation.enabled .Values.clusterAgent.privateActionRunner.enabled (((.Values.datadog.autoscaling).workload).enabled) .Values.datadog.kubernetesActions.enabled) (not .Values.providers.gke.gdc ) -}}
true
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
Validate Cluster Agent Private Action Runner configuration
*/}}
{{- define "validate-private-action-runner-config" -}}
{{- if .Values.clusterAgent.privateActionRunner.enabled -}}
{{- if and .Values.clusterAgent.privateActionRunner.selfEnroll (not .Values.datadog.leaderElection) -}}
{{- fail "Private Action Runner: selfEnroll requires leader election to be enabled. Please set datadog.leaderElection to true" }}
{{- end -}}
{{- if not .Values.clusterAgent.privateActionRunner.selfEnroll -}}
{{- if and (not .Values.clusterAgent.privateActionRunner.identityFromExistingSecret) (or (not .Values.clusterAgent.privateActionRunner.urn) (not .Values.clusterAgent.privateActionRunner.privateKey)) -}}
{{- fail "Private Action Runner: when selfEnroll is disabled, you must provide either clusterAgent.privateActionRunner.identityFromExistingSecret or both clusterAgent.privateActionRunner.urn and clusterAgent.privateActionRunner.privateKey" }}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Validate Node Agent Private Action Runner configuration
*/}}
{{- define "validate-node-private-action-runner-config" -}}
{{- if .Values.datadog.privateActionRunner.enabled -}}
{{- if not .Values.datadog.privateActionRunner.selfEnroll -}}
{{- if and (not .Values.datadog.privateActionRunner.identityFromExistingSecret) (or (not .Values.datadog.privateActionRunner.urn) (not .Values.datadog.privateActionRunner.privateKey)) -}}
{{- fail "Node Agent Private Action Runner: when selfEnroll is disabled, you must provide either datadog.privateActionRunner.identityFromExistingSecret or both datadog.privateActionRunner.urn and datadog.privateActionRunner.privateKey" }}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Return orchestratorExplorer customResources list with conditional addition of datadogpodautoscalers.
*/}}
{{- define "orchestratorExplorer-custom-resources" -}}
{{- $customResources := .Values.datadog.orchestratorExplorer.customResources | default list -}}
{{- if (((.Values.datadog.autoscaling).workload).enabled) -}}
{{- $customResources = append $customResources "datadoghq.com/v1alpha2/datadogpodautoscalers" -}}
{{- $customResources = append $customResources "datadoghq.com/v1alpha2/datadogpodautoscalerclusterprofiles" -}}
{{- end -}}
{{- $filteredResources := list -}}
{{- range $cr := $customResources -}}
{{- if ne $cr "datadoghq.com/v1alpha1/datadogpodautoscalers" -}}
{{- $filteredResources = append $filteredResources $cr -}}
{{- end -}}
{{- end -}}
{{- $filteredResources | uniq | toYaml -}}
{{- end -}}

{{/*
Create RBACs for custom resources
*/}}
{{- define "orchestratorExplorer-config-crs" -}}
{{- $resources := (include "orchestratorExplorer-custom-resources" . | fromYamlArray) -}}
{{- range $cr := $resources }}
- apiGroups:
  - {{ (splitList "/" $cr) | first | quote }}
  resources:
  - {{ (splitList "/" $cr) | last | quote }}
  verbs:
  - get
  - list
  - watch
{{- end }}
{{- end }}

{{/*
  Return true if Container Runtime Support is enabled
*/}}
{{- define "container-runtime-support-enabled" -}}
  {{- if and .Values.datadog.containerRuntimeSupport.enabled (not .Values.providers.gke.gdc) -}}
    true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}

{{/*
  Return true if container image collection is enabled
*/}}
{{- define "should-enable-container-image-collection" -}}
  {{- if and (not (include "container-runtime-support-enabled" .)) (or .Values.datadog.containerImageCollection.enabled .Values.datadog.sbom.containerImage.enabled) -}}
    {{- fail "Container runtime support has to be enabled for container image collection to work. Please enable it using `datadog.containerRuntimeSupport.enabled`." -}}
  {{- end -}}
  {{- if or .Values.datadog.containerImageCollection.enabled .Values.datadog.sbom.containerImage.enabled -}}
    true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}

{{/*
  Return true if SBOM collection for container image is enabled
*/}}
{{- define "should-enable-sbom-container-image-collection" -}}
  {{- if and (.Values.datadog.sbom.containerImage.enabled) (not (or .Values.providers.gke.autopilot .Values.providers.gke.gdc)) -}}
    {{- if not (eq (include "should-enable-container-image-collection" .) "true") -}}
      {{- fail "Container runtime support has to be enabled for SBOM collection to work. Please enable it using `datadog.containerRuntimeSupport.enabled`." -}}
    {{- end -}}
    true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}

{{/*
  Return true if SBOM collection for host filesystems is enabled
*/}}
{{- define "should-enable-sbom-host-fs-collection" -}}
  {{- if and (.Values.datadog.sbom.host.enabled) (not (or .Values.providers.gke.autopilot .Values.providers.gke.gdc)) -}}
    true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}

{{/*
  Return true if SBOM enrichment "package in use" runtime detection is enabled
*/}}
{{- define "should-enable-sbom-enrichment-usage" -}}
  {{- if and .Values.datadog.sbom.enrichment.usage.enabled (not (or .Values.providers.gke.autopilot .Values.providers.gke.gdc)) -}}
    true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}

{{/*
  Return true if language detection feature is enabled
*/}}
{{- define "language-detection-enabled" -}}
  {{- if and .Values.datadog.apm.instrumentation.enabled .Values.datadog.apm.instrumentation.language_detection.enabled -}}
    true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}
{{/*
  Return true if any process-related check is enabled
*/}}
{{- define "process-checks-enabled" -}}
  {{- if .Values.providers.gke.gdc }}
    false
  {{- end -}}
  {{- if or .Values.datadog.processAgent.containerCollection .Values.datadog.processAgent.processCollection .Values.datadog.processAgent.processDiscovery (eq (include "language-detection-enabled" .) "true") -}}
    true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}

{{/*
  Returns true if process-related checks should run on the core agent.
  As of Agent 7.78, process checks always run in the core agent on Linux and the
  DD_PROCESS_CONFIG_RUN_IN_CORE_AGENT_ENABLED envvar is no longer recognized.
  The envvar is still injected for backward compatibility with agents < 7.78.
*/}}
{{- define "should-run-process-checks-on-core-agent" -}}
  {{- if ne .Values.targetSystem "linux" -}}
    false
  {{- else if .Values.agents.image.doNotCheckTag -}}
    true
  {{- else if semverCompare ">=7.60.0-0" (include "get-agent-version" .) -}}
      true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}

{{/*
  Returns true if the process-agent container should be created.
*/}}
{{- define "should-enable-process-agent" -}}
  {{- if .Values.providers.gke.gdc -}}
    false
  {{- end -}}
  {{- if or .Values.datadog.networkMonitoring.enabled .Values.datadog.serviceMonitoring.enabled -}}
    true
  {{- else if and (not .Values.agents.image.doNotCheckTag) (eq (include "should-enable-k8s-resource-monitoring" .) "true") (semverCompare "<=7.51.0-0" (include "get-agent-version" .)) -}}
    true
  {{- else if (eq (include "should-run-process-checks-on-core-agent" .) "true") -}}
    false
  {{- else -}}
    {{- include "process-checks-enabled" . -}}
  {{- end -}}
{{- end -}}


{{- define "get-port-number-from-name" -}}
{{- $portName := .portName -}}
{{- range .ports -}}
  {{- if eq .name $portName -}}
    {{ .containerPort }}
  {{- end -}}
{{- end -}}
{{- end -}}

{{/*
  Returns true if Host path for os-release-file needs to be added to the volumes.
*/}}
{{- define "should-add-host-path-for-os-release-file" -}}
{{- if .Values.providers.gke.gdc -}}
false
{{- end }}
{{- if or .Values.datadog.systemProbe.osReleasePath .Values.datadog.osReleasePath .Values.datadog.sbom.host.enabled -}}
{{- if .Values.providers.gke.autopilot -}}
{{- if and (eq (include "should-enable-system-probe" . ) "true" ) (eq (include "gke-autopilot-workloadallowlists-enabled" . ) "true") -}}
true
{{- else -}}
false
{{- end -}}
{{- else -}}
true
{{- end -}}
{{- else -}}
false
{{- end -}}
{{- end -}}

{{/*
  Returns true if Host paths for default OS Release Paths need to be added to the volumes.
*/}}
{{- define "should-add-host-path-for-os-release-paths" -}}
  {{- if ne .Values.targetSystem "linux" -}}
    false
  {{- else if .Values.providers.gke.autopilot -}}
    false
  {{- else if .Values.providers.talos.enabled -}}
    false
  {{- else if (and .Values.datadog.systemProbe.enableDefaultOsReleasePaths (not .Values.datadog.disableDefaultOsReleasePaths)) -}}
    true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}


{{/*
  Returns true if the host file /etc/passwd should be mounted, else return false.
*/}}
{{- define "should-add-host-path-for-etc-passwd" -}}
  {{- if ne .Values.targetSystem "linux" -}}
    false
  {{- else if .Values.providers.talos.enabled -}}
    false
  {{- else if not (eq (include "is-agent-user-root" .) "true") -}}
    false
  {{- else if not .Values.datadog.disablePasswdMount -}}
    true
  {{- else -}}
    false
  {{- end -}}
{{- end -}}

{{/*
  Returns true if the host file /etc/group should be mounted, else return false.
*/}}
{{- define "should-add-host-path-for-etc-group" -}}
  {{- if ne .Values.targetSystem "linux" -}}
    false
  {{- else if .Values.providers.talos.enabled -}}
    false
  {{- else -}}
    true
  {{- end -}}
{{- end -}}

{{/*
  Returns true if the agent is running as the root user (UID 0), else return false
*/}}
{{- define "is-agent-user-root" -}}
  {{- if and .Values.datadog.securityContext .Values.datadog.securityContext.runAsUser (ne (toString .Values.datadog.securityContext.runAsUser) "0") -}}
    false
  {{- else -}}
    true
  {{- end -}}
{{- end -}}

{{/*
  Returns the check config for the EKS control plane monitoring.
*/}}
{{- define "eks-control-plane-monitoring-config" -}}
kube_apiserver_metrics.yaml: |-
  advanced_ad_identifiers:
  - kube_endpoints:
      name: "kubernetes"
      namespace: "default"
  cluster_check: true
  init_config: {}
  instances:
    - prometheus_url: "https://%%host%%:%%port%%/metrics"
      bearer_token_auth: true

kube_controller_manager.yaml: |-
  advanced_ad_identifiers:
    - kube_endpoints:
        name: "kubernetes"
        namespace: "default"
  cluster_check: true
  init_config: {}
  instances:
    - prometheus_url: "https://%%host%%:%%port%%/apis/metrics.eks.amazonaws.com/v1/kcm/container/metrics"
      extra_headers:
          accept: "*/*"
      bearer_token_auth: true
      tls_ca_cert: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"

kube_scheduler.yaml: |-
  advanced_ad_identifiers:
    - kube_endpoints:
        name: "kubernetes"
        namespace: "default"
  cluster_check: true
  init_config: {}
  instances:
    - prometheus_url: "https://%%host%%:%%port%%/apis/metrics.eks.amazonaws.com/v1/ksh/container/metrics"
      extra_headers:
          accept: "*/*"
      bearer_token_auth: true
      tls_ca_cert: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
{{- end -}}

{{/*
  Returns the configuration for the OpenShift control plane monitoring.
*/}}
{{- define "openshift-control-plane-monitoring-config" -}}
kube_apiserver_metrics.yaml: |-
  advanced_ad_identifiers:
  - kube_endpoints:
      name: "kubernetes"
      namespace: "default"
      resolve: "ip"
  cluster_check: true
  init_config: {}
  instances:
    - prometheus_url: "https://%%host%%:%%port%%/metrics"
      bearer_token_auth: true

kube_controller_manager.yaml: |-
  advanced_ad_identifiers:
    - kube_endpoints:
        name: "kube-controller-manager"
        namespace: "openshift-kube-controller-manager"
        resolve: "ip"
  cluster_check: true
  init_config: {}
  instances:
    - prometheus_url: "https://%%host%%:%%port%%/metrics"
      ssl_verify: false
      bearer_token_auth: true

kube_scheduler.yaml: |-
  advanced_ad_identifiers:
    - kube_endpoints:
        name: "scheduler"
        namespace: "openshift-kube-scheduler"
        resolve: "ip"
  cluster_check: true
  init_config: {}
  instances:
    - prometheus_url: "https://%%host%%:%%port%%/metrics"
      ssl_verify: false
      bearer_token_auth: true

etcd.yaml: |-
  advanced_ad_identifiers:
    - kube_endpoints:
        name: "etcd"
        namespace: "openshift-etcd"
        resolve: "ip"
  cluster_check: true
  init_config: {}
  instances:
    - prometheus_url: "https://%%host%%:%%port%%/metrics"
      ssl_verify: false
      tls_cert: "/etc/etcd-certs/tls.crt"
      tls_private_key: "/etc/etcd-certs/tls.key"
{{- end -}}


{{/*
  Returns true if the DatadogAgent CRD is installed.
*/}}
{{- define "datadogagents-crd-ready" }}
{{- if $.Capabilities.APIVersions.Has "datadoghq.com/v2alpha1/DatadogAgent" }}
true
{{- end }}
{{- end -}}


{{/*
  Returns true if Helm->DDA migration is supported.
*/}}
{{- define "migration-supported" }}
{{- if and .Values.datadog.operator.enabled ( include "datadogagents-crd-ready" . ) (or (.Values.operator.image.doNotCheckTag) ( semverCompare ">=1.22.0" .Values.operator.image.tag )) }}
true
{{- end }}
{{- end }}


{{/*
This helper computes the Deployment name for the operator when installed as a subchart of the datadog chart.

The Operator subchart dependency uses hardcoded alias = "operator", so the subchart sees .Chart.Name = "operator" (not "datadog-operator").
Release.Name = parent (datadog chart) release name.

The logic follows the Operator chart's `datadog-operator.fullname` helper:
  1. If operator.fullnameOverride is set, use that value
  2. Otherwise, use operator.nameOverride (default "operator") as <name>
  3. If the <name> is contained in Release.Name, use Release.Name
  4. Otherwise, use Release.Name-<name>

Examples (assuming no overrides):
  - datadog chart release "datadog" → operator Deployment "datadog-operator"
  - datadog chart release "dd" → operator Deployment "dd-operator"
  - datadog chart release "my-datadog" → operator Deployment "my-datadog-operator"
*/}}
{{- define "operator-subchart-deployment-name" -}}
{{- if .Values.operator.fullnameOverride -}}
{{- .Values.operator.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default "operator" .Values.operator.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}
