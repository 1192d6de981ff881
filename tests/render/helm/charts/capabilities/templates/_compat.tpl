{{- define "capabilities.pdb.apiVersion" -}}
{{- if .Capabilities.APIVersions.Has "policy/v1" -}}
policy/v1
{{- else -}}
policy/v1beta1
{{- end -}}
{{- end -}}
{{- define "capabilities.ingress.apiVersion" -}}
{{- if semverCompare "<1.19-0" .Capabilities.KubeVersion.GitVersion -}}
networking.k8s.io/v1beta1
{{- else -}}
networking.k8s.io/v1
{{- end -}}
{{- end -}}
