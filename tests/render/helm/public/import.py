#!/usr/bin/env python3
"""Builds the public chart corpus from bare git mirrors of the charts' source repositories.

Usage: import.py MIRRORS_DIR [--cases-only]

MIRRORS_DIR holds one bare repository per source as `OWNER+NAME/repo` (what `git clone --mirror` of
github.com/OWNER/NAME gives, renamed). For each chart of CHARTS the chart directory at the mirror's HEAD (or the
release tag named) is copied to `<source>/<chart>/`, without its README.md and CHANGELOG.md (no template reads
them); the source's LICENSE and NOTICE are copied to `<source>/`. Dependencies are vendored as `helm dependency
build` would, at the version the chart's Chart.lock pins (else the exact version Chart.yaml names, else the one in
PINNED): the dependency's source repository is searched for the earliest commit whose Chart.yaml has that version,
and the chart at that commit goes under `charts/<name>/` with the files its own .helmignore excludes left out (as
`helm package` leaves them out), its own dependencies vendored the same way. SOURCES.md is written, and one case
file per chart and value set under `cases/`: `<source>--<chart>.yaml` (default values) and
`<source>--<chart>--override.yaml` (the override in OVERRIDES, else one made from the keys the chart's
values.yaml has: ingress on, replicas, persistence off, extra labels).

Needs PyYAML. Run it again to rebuild; it clears only the directories it writes.
"""

import fnmatch
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))

# source slug: (mirror OWNER+NAME, chart path pattern, licence)
SOURCES = {
    "bitnami": ("bitnami+charts", "bitnami/{}", "Apache-2.0"),
    "prometheus-community": ("prometheus-community+helm-charts", "charts/{}", "Apache-2.0"),
    "grafana": ("grafana+helm-charts", "charts/{}", "Apache-2.0"),
    "grafana-community": ("grafana-community+helm-charts", "charts/{}", "Apache-2.0"),
    "argo": ("argoproj+argo-helm", "charts/{}", "Apache-2.0"),
    "ingress-nginx": ("kubernetes+ingress-nginx", "charts/{}", "Apache-2.0"),
    "cert-manager": ("cert-manager+cert-manager", "deploy/charts/{}", "Apache-2.0"),
    "trust-manager": ("cert-manager+trust-manager", "deploy/charts/{}", "Apache-2.0"),
    "vault-helm": ("hashicorp+vault-helm", "", "MPL-2.0"),
    "traefik": ("traefik+traefik-helm-chart", "{}", "Apache-2.0"),
    "metrics-server": ("kubernetes-sigs+metrics-server", "charts/{}", "Apache-2.0"),
    "external-secrets": ("external-secrets+external-secrets", "deploy/charts/{}", "Apache-2.0"),
    "kedacore": ("kedacore+charts", "{}", "Apache-2.0"),
    "elastic": ("elastic+helm-charts", "{}", "Apache-2.0"),
    "open-telemetry": ("open-telemetry+opentelemetry-helm-charts", "charts/{}", "Apache-2.0"),
    "fluent": ("fluent+helm-charts", "charts/{}", "Apache-2.0"),
    "dandydeveloper": ("DandyDeveloper+charts", "charts/{}", "Apache-2.0"),
    "external-dns": ("kubernetes-sigs+external-dns", "charts/{}", "Apache-2.0"),
    "sealed-secrets": ("bitnami-labs+sealed-secrets", "helm/{}", "Apache-2.0"),
    "descheduler": ("kubernetes-sigs+descheduler", "charts/{}", "Apache-2.0"),
    "reloader": ("stakater+Reloader", "deployments/kubernetes/chart/{}", "Apache-2.0"),
    "autoscaler": ("kubernetes+autoscaler", "{}", "Apache-2.0"),
    "datadog": ("DataDog+helm-charts", "charts/{}", "Apache-2.0"),
    "velero": ("vmware-tanzu+helm-charts", "charts/{}", "Apache-2.0"),
    "jenkins": ("jenkinsci+helm-charts", "charts/{}", "Apache-2.0"),
    "harbor": ("goharbor+harbor-helm", "", "Apache-2.0"),
    "eks-charts": ("aws+eks-charts", "stable/{}", "Apache-2.0"),
    "flux": ("fluxcd-community+helm-charts", "charts/{}", "Apache-2.0"),
    "gatekeeper": ("open-policy-agent+gatekeeper", "charts/{}", "Apache-2.0"),
    "codecentric": ("codecentric+helm-charts", "charts/{}", "Apache-2.0"),
    "nginx-inc": ("nginx+kubernetes-ingress", "charts/{}", "Apache-2.0"),
    "jaeger": ("jaegertracing+helm-charts", "charts/{}", "Apache-2.0"),
    "opensearch": ("opensearch-project+helm-charts", "charts/{}", "Apache-2.0"),
    "istio": ("istio+istio", "manifests/charts/{}", "Apache-2.0"),
    "crossplane": ("crossplane+crossplane", "cluster/charts/{}", "Apache-2.0"),
    "kong": ("Kong+charts", "charts/{}", "Apache-2.0"),
    "dashboard": ("kubernetes+dashboard", "charts/{}", "Apache-2.0"),
    "gpu-operator": ("NVIDIA+gpu-operator", "deployments/{}", "Apache-2.0"),
    "calico": ("projectcalico+calico", "charts/{}", "Apache-2.0"),
    "bitwarden-sdk-server": ("external-secrets+bitwarden-sdk-server", "deploy/charts/{}", "Apache-2.0"),
}

BITNAMI = (
    "airflow apache argo-cd cassandra cert-manager consul contour discourse drupal elasticsearch etcd external-dns "
    "fluent-bit fluentd ghost gitea grafana grafana-loki harbor haproxy influxdb jaeger jenkins kafka keycloak kibana "
    "kong kube-prometheus kube-state-metrics logstash mariadb memcached metallb metrics-server minio mongodb "
    "moodle mysql nats nginx nginx-ingress-controller node-exporter oauth2-proxy phpmyadmin postgresql "
    "postgresql-ha prometheus rabbitmq redis redis-cluster sealed-secrets solr sonarqube spark thanos tomcat valkey "
    "vault opensearch wordpress zookeeper"
).split()

# (source, chart); a chart path that is not the pattern's is given as "chart=path".
CHARTS = [("bitnami", c) for c in BITNAMI] + [
    ("prometheus-community", c)
    for c in (
        "kube-prometheus-stack prometheus alertmanager kube-state-metrics prometheus-node-exporter "
        "prometheus-blackbox-exporter prometheus-pushgateway prometheus-adapter prometheus-postgres-exporter "
        "prometheus-mysql-exporter prometheus-redis-exporter prometheus-elasticsearch-exporter "
        "prometheus-mongodb-exporter prometheus-snmp-exporter prometheus-statsd-exporter prometheus-json-exporter "
        "prometheus-operator-admission-webhook prometheus-windows-exporter prometheus-cloudwatch-exporter "
        "prometheus-rabbitmq-exporter"
    ).split()
] + [
    ("grafana", c) for c in "loki-distributed promtail agent-operator rollout-operator fluent-bit".split()
] + [("grafana-community", c) for c in "grafana tempo tempo-distributed".split()] + [
    ("argo", c) for c in "argo-cd argo-workflows argo-rollouts argo-events argocd-apps argocd-image-updater".split()
] + [
    ("ingress-nginx", "ingress-nginx"),
    ("cert-manager", "cert-manager"),
    ("trust-manager", "trust-manager"),
    ("vault-helm", "vault="),
    ("traefik", "traefik"),
    ("metrics-server", "metrics-server"),
    ("external-secrets", "external-secrets"),
    ("kedacore", "keda"),
    ("kedacore", "http-add-on"),
] + [("elastic", c) for c in "elasticsearch kibana logstash filebeat metricbeat apm-server".split()] + [
    ("open-telemetry", c) for c in "opentelemetry-collector opentelemetry-operator opentelemetry-kube-stack".split()
] + [("fluent", c) for c in "fluent-bit fluentd fluent-operator".split()] + [
    ("dandydeveloper", "redis-ha"),
    ("external-dns", "external-dns"),
    ("sealed-secrets", "sealed-secrets"),
    ("descheduler", "descheduler"),
    ("reloader", "reloader"),
    ("autoscaler", "cluster-autoscaler=cluster-autoscaler/charts/cluster-autoscaler"),
    ("datadog", "datadog"),
    ("datadog", "datadog-operator"),
    ("velero", "velero"),
    ("jenkins", "jenkins"),
    ("harbor", "harbor="),
    ("eks-charts", "aws-load-balancer-controller"),
    ("flux", "flux2"),
    ("gatekeeper", "gatekeeper"),
    ("codecentric", "keycloakx"),
    ("jaeger", "jaeger"),
    ("opensearch", "opensearch"),
    ("opensearch", "opensearch-dashboards"),
    ("istio", "base"),
    ("istio", "istiod=manifests/charts/istio-control/istio-discovery"),
    ("istio", "gateway"),
    ("crossplane", "crossplane"),
    ("kong", "kong"),
    ("kong", "ingress"),
    ("dashboard", "kubernetes-dashboard"),
    ("gpu-operator", "gpu-operator"),
    ("calico", "tigera-operator"),
]

# Charts whose source sets version and appVersion at release time (`version: v0.0.0` in git): the release tag taken
# and the version the release tool writes into Chart.yaml.
RELEASE_TAGS = {
    ("cert-manager", "cert-manager"): ("v1.21.1", "v1.21.1"),
    ("trust-manager", "trust-manager"): ("v0.24.0", "v0.24.0"),
    ("istio", "base"): ("1.30.3", "1.30.3"),
    ("istio", "istiod"): ("1.30.3", "1.30.3"),
    ("istio", "gateway"): ("1.30.3", "1.30.3"),
    ("crossplane", "crossplane"): ("v2.3.4", "2.3.4"),
    ("gpu-operator", "gpu-operator"): ("v26.7.0", "v26.7.0"),
    ("calico", "tigera-operator"): ("v3.32.1", "v3.32.1"),
    # Their HEAD is a pre-release (`1.4.0-dev`, `3.24.0-beta.0`): the latest release tag, unchanged.
    ("harbor", "harbor"): ("v1.19.1", None),
    ("gatekeeper", "gatekeeper"): ("v3.23.0", None),
}

# Dependency repositories: URL -> source slug; chart names whose directory differs.
DEPENDENCY_SOURCES = {
    "oci://registry-1.docker.io/bitnamicharts": "bitnami",
    "https://charts.bitnami.com/bitnami": "bitnami",
    "https://prometheus-community.github.io/helm-charts": "prometheus-community",
    "https://grafana.github.io/helm-charts": "grafana",
    "https://grafana-community.github.io/helm-charts": "grafana-community",
    "https://open-telemetry.github.io/opentelemetry-helm-charts": "open-telemetry",
    "https://dandydeveloper.github.io/charts/": "dandydeveloper",
    "https://dandydeveloper.github.io/charts": "dandydeveloper",
    "oci://ghcr.io/external-secrets/charts": "bitwarden-sdk-server",
    "https://helm.datadoghq.com": "datadog",
    "https://kubernetes.github.io/ingress-nginx": "ingress-nginx",
    "https://charts.jetstack.io": "cert-manager",
    "https://kubernetes-sigs.github.io/metrics-server": "metrics-server",
    "https://charts.konghq.com": "kong",
}
DEPENDENCY_DIRS = {("grafana", "grafana-agent-operator"): "agent-operator"}

# Dependencies without a Chart.lock and with a range: the version `helm dependency update` would have chosen on the
# parent's commit date (the newest the range allows in the dependency's own history before then).
PINNED = {
    ("prometheus-community/kube-prometheus-stack", "prometheus-windows-exporter"): (
        "0.12.8",
        "newest 0.12.* at the chart's commit (no Chart.lock)",
    ),
}

# Versions a Chart.lock pins that the dependency's source repository does not have: the nearest it has.
NEAREST = {
    ("jaeger/jaeger", "common"): (
        "2.31.10",
        "2.34.0 is in no commit of bitnami/charts (its newest common is 2.31.10): the nearest, 2.31.10",
    ),
}

# Overrides chosen by hand where the generated one would not be realistic.
LABELS = {"team": "platform", "tier": "backend"}
OVERRIDES = {
    "bitnami/argo-cd": (
        {"server": {"ingress": {"enabled": True, "hostname": "argocd.example.com"}, "replicaCount": 2}},
        ["server ingress on", "2 server replicas"],
    ),
    "argo/argocd-apps": (
        {
            "applications": {
                "guestbook": {
                    "namespace": "argocd",
                    "additionalLabels": LABELS,
                    "finalizers": ["resources-finalizer.argocd.argoproj.io"],
                    "project": "default",
                    "source": {
                        "repoURL": "https://github.com/argoproj/argocd-example-apps.git",
                        "targetRevision": "HEAD",
                        "path": "guestbook",
                    },
                    "destination": {"server": "https://kubernetes.default.svc", "namespace": "guestbook"},
                    "syncPolicy": {"automated": {"prune": True}, "syncOptions": ["CreateNamespace=true"]},
                }
            }
        },
        ["one Application, with extra labels"],
    ),
    "autoscaler/cluster-autoscaler": (
        {"autoDiscovery": {"clusterName": "prod"}, "replicaCount": 2, "podLabels": LABELS},
        ["auto-discovery for a cluster (the Deployment renders only then)", "2 replicas", "extra labels"],
    ),
    "fluent/fluent-bit": (
        {"podLabels": LABELS, "resources": {"limits": {"memory": "128Mi"}, "requests": {"cpu": "100m"}}},
        ["extra labels", "resources (a DaemonSet: no replicas)"],
    ),
    "istio/base": (
        {"defaultRevision": "stable", "global": {"istioNamespace": "mesh-system"}},
        ["default revision `stable`", "istio namespace `mesh-system`"],
    ),
    "jenkins/jenkins": (
        {"controller": {"ingress": {"enabled": True, "hostName": "jenkins.example.com"}}, "persistence": {"enabled": False}},
        ["controller ingress on", "persistence off"],
    ),
    "kong/ingress": (
        {"gateway": {"replicaCount": 3, "podLabels": LABELS}},
        ["3 gateway replicas", "extra gateway labels"],
    ),
    "bitnami/memcached": (
        {"architecture": "high-availability", "replicaCount": 3},
        ["high-availability with 3 replicas"],
    ),
    "external-dns/external-dns": ({"podLabels": LABELS, "sources": ["service", "ingress"]}, ["extra labels", "sources"]),
    "grafana/loki-distributed": (
        {"gateway": {"ingress": {"enabled": True}}, "ingester": {"replicas": 3, "maxUnavailable": 1}},
        ["gateway ingress on", "3 ingesters"],
    ),
    "open-telemetry/opentelemetry-kube-stack": (
        {"opentelemetry-operator": {"replicaCount": 2}, "kubeStateMetrics": {"enabled": True}},
        ["2 operator replicas", "kube-state-metrics on"],
    ),
}

# Extra values a chart needs for Helm to render it at all (documented in the README).
REQUIRED = {
    # Its values.schema.json requires `policy`, which its values.yaml does not set.
    "external-dns/external-dns": {"policy": "upsert-only"},
    # Tempo 3's write path needs a Kafka broker named.
    "grafana-community/tempo-distributed": {"ingest": {"kafka": {"address": "kafka.apps.svc:9092"}}},
    # No default mode or image since 0.88.
    "open-telemetry/opentelemetry-collector": {
        "mode": "deployment",
        "image": {"repository": "otel/opentelemetry-collector-k8s"},
    },
    # "Chart cannot be installed without a valid clusterName!"
    "eks-charts/aws-load-balancer-controller": {"clusterName": "prod"},
    "prometheus-community/prometheus-postgres-exporter": {"config": {"datasource": {"password": "example"}}},
}


def git(mirror, *args, binary=False):
    result = subprocess.run(
        ["git", "--git-dir", os.path.join(MIRRORS, mirror, "repo"), *args], capture_output=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {mirror}: {result.stderr.decode()}")
    return result.stdout if binary else result.stdout.decode()


def helmignore_rules(text):
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        directory = line.endswith("/")
        line = line.rstrip("/")
        if line.startswith("/"):
            line = line[1:]
        rules.append((negate, directory, line))
    return rules


def go_match(pattern, name):
    """filepath.Match: `*` and `?` never cross a `/`."""
    regex = ""
    for part in re.split(r"(\*|\?|\[[^\]]*\])", pattern):
        if part == "*":
            regex += "[^/]*"
        elif part == "?":
            regex += "[^/]"
        elif part.startswith("[") and part.endswith("]") and len(part) > 2:
            regex += "[" + ("^" + part[2:-1] if part[1] in "!^" else part[1:-1]) + "]"
        else:
            regex += re.escape(part)
    return re.fullmatch(regex, name) is not None


def ignored(rules, path):
    """Helm's ignore rules on a chart-relative path: a directory ignored ignores what is under it."""
    parts = path.split("/")
    for depth in range(1, len(parts) + 1):
        sub = "/".join(parts[:depth])
        is_dir = depth < len(parts)
        verdict = False
        for negate, directory, pattern in rules:
            if directory and not is_dir:
                continue
            target = sub if "/" in pattern else parts[depth - 1]
            if go_match(pattern, target):
                verdict = not negate
        if verdict:
            return True
    return False


DROPPED = {"README.md", "CHANGELOG.md"}


def copy_chart(mirror, commit, path, dest, apply_helmignore):
    """The chart at `path` of `commit`, written to `dest`; returns the files written."""
    data = git(mirror, "archive", "--format=tar", commit, *([path] if path else []), binary=True)
    files = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            relative = member.name[len(path) + 1 :] if path else member.name
            files[relative] = tar.extractfile(member).read()
    rules = helmignore_rules(files.get(".helmignore", b"").decode()) if apply_helmignore else []
    written = []
    for relative, content in sorted(files.items()):
        if relative in DROPPED or (rules and ignored(rules, relative)):
            continue
        target = os.path.join(dest, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(content)
        written.append(relative)
    return written


RANDOM = {}  # case file name: its `random:` section, kept across imports
VENDORED = []  # rows for SOURCES.md: (chart, version, source, commit, into)
_version_commits = {}


def commit_with_version(mirror, chart_path, version):
    key = (mirror, chart_path, version)
    if key in _version_commits:
        return _version_commits[key]
    log = git(mirror, "log", "--format=%H", "--reverse", f"-Sversion: {version}", "--", f"{chart_path}/Chart.yaml")
    found = None
    for commit in log.split():
        try:
            chart = yaml.safe_load(git(mirror, "show", f"{commit}:{chart_path}/Chart.yaml"))
        except RuntimeError:
            continue
        if str(chart.get("version")) == str(version):
            found = commit
            break
    _version_commits[key] = found
    return found


def vendor_dependencies(dest, label):
    """Vendors what dest/Chart.yaml depends on (at the versions dest/Chart.lock pins) under dest/charts/."""
    with open(os.path.join(dest, "Chart.yaml"), encoding="utf-8") as handle:
        chart = yaml.safe_load(handle)
    dependencies = chart.get("dependencies") or []
    lock_path = os.path.join(dest, "Chart.lock")
    locked = {}
    if os.path.exists(lock_path):
        with open(lock_path, encoding="utf-8") as handle:
            for entry in yaml.safe_load(handle).get("dependencies") or []:
                locked[(entry["name"], entry.get("repository", ""))] = str(entry["version"])
    seen = set()
    for dependency in dependencies:
        name, repository = dependency["name"], dependency.get("repository") or ""
        if not repository or repository.startswith("file://"):
            continue  # in the chart's own tree
        if (name, repository) in seen:
            continue  # aliased twice: one copy
        if os.path.isdir(os.path.join(dest, "charts", name)):
            continue  # vendored in the chart's own tree, as its repository has it
        seen.add((name, repository))
        version = locked.get((name, repository))
        note = "Chart.lock"
        if version is None:
            wanted = str(dependency.get("version", ""))
            if re.fullmatch(r"v?\d+\.\d+\.\d+", wanted):
                version, note = wanted, "Chart.yaml (exact, no Chart.lock)"
            elif (label, name) in PINNED:
                version, note = PINNED[(label, name)]
            else:
                raise RuntimeError(f"{label}: {name} {wanted} has no pinned version")
        source = DEPENDENCY_SOURCES.get(repository.rstrip("/")) or DEPENDENCY_SOURCES.get(repository)
        if source is None:
            raise RuntimeError(f"{label}: no source for {repository}")
        mirror, pattern, licence = SOURCES[source]
        chart_path = pattern.format(DEPENDENCY_DIRS.get((source, name), name))
        commit = commit_with_version(mirror, chart_path, version)
        tagged = False
        if commit is None:
            # Charts whose release packaging sets the version (`helm package --version --app-version`): the tag.
            try:
                tag = release_tag(mirror, name, version)
                commit = git(mirror, "rev-parse", f"refs/tags/{tag}^{{commit}}").strip()
                tagged = True
                note += f"; no commit of the default branch has it in Chart.yaml: tag {tag}"
            except RuntimeError:
                if (label, name) not in NEAREST:
                    raise RuntimeError(f"{label}: {name} {version} not found in {mirror}:{chart_path}") from None
                version, why = NEAREST[(label, name)]
                note += f"; {why}"
                commit = commit_with_version(mirror, chart_path, version)
        target = os.path.join(dest, "charts", name)
        if os.path.exists(target):
            shutil.rmtree(target)
        copy_chart(mirror, commit, chart_path, target, apply_helmignore=True)
        if tagged and not os.path.exists(os.path.join(target, "Chart.yaml")):
            # cert-manager before 1.18: its release tool writes Chart.yaml from Chart.template.yaml (which its
            # .helmignore leaves out of the package).
            text = git(mirror, "show", f"{commit}:{chart_path}/Chart.template.yaml").replace("{{IS_PRERELEASE}}", "false")
            with open(os.path.join(target, "Chart.yaml"), "w", encoding="utf-8") as handle:
                handle.write(text)
            VENDOR_NOTES[(name, version)] = "Chart.yaml written from Chart.template.yaml as its release tool writes it"
        if tagged:
            with open(os.path.join(target, "Chart.yaml"), encoding="utf-8") as handle:
                if str(yaml.safe_load(handle).get("version")) != version:
                    set_version(os.path.join(target, "Chart.yaml"), version, version)
                    VENDOR_NOTES[(name, version)] = (
                        VENDOR_NOTES.get((name, version), "") + "; version and appVersion set as its release packaging sets them"
                    ).lstrip("; ")
        VENDORED.append((name, version, source, commit, label, note))
        licence_files(source)
        vendor_dependencies(target, f"{label} > {name}")


VENDOR_NOTES = {}


def release_tag(mirror, name, version):
    """The release tag of a chart version: `VERSION`, `vVERSION`, `NAME-VERSION` or `helm-chart-VERSION`."""
    tags = set(git(mirror, "tag", "--list").split())
    for tag in (version, f"v{version}", f"{name}-{version}", f"helm-chart-{version}"):
        if tag in tags:
            return tag
    raise RuntimeError(f"no tag for {name} {version} in {mirror}")


def set_version(chart_yaml, version, app_version):
    """Chart.yaml's version and appVersion lines set, as a release tool sets them; nothing else changed."""
    with open(chart_yaml, encoding="utf-8") as handle:
        text = handle.read()
    text = re.sub(r"(?m)^version:.*$", f"version: {version}", text, count=1)
    text = re.sub(r"(?m)^appVersion:.*$", f'appVersion: "{app_version}"', text, count=1)
    with open(chart_yaml, "w", encoding="utf-8") as handle:
        handle.write(text)


def licence_files(source):
    mirror = SOURCES[source][0]
    names = git(mirror, "ls-tree", "--name-only", "HEAD").split()
    dest = os.path.join(HERE, source)
    os.makedirs(dest, exist_ok=True)
    for name in names:
        if re.match(r"^(LICEN[CS]E|NOTICE|COPYING)(\.md|\.txt)?$", name, re.I):
            with open(os.path.join(dest, name), "wb") as handle:
                handle.write(git(mirror, "show", f"HEAD:{name}", binary=True))


def find(values, key, depth=0, path=()):
    """Paths to `key` in a values tree, shallowest first (maps only, two levels down)."""
    found = _find(values, key, depth, path)
    return sorted(found, key=len)


def _find(values, key, depth, path):
    found = []
    if not isinstance(values, dict) or depth > 2:
        return found
    if key in values:
        found.append(path + (key,))
    for name, child in values.items():
        if isinstance(child, dict):
            found.extend(_find(child, key, depth + 1, path + (name,)))
    return found


def set_path(tree, path, value):
    for key in path[:-1]:
        tree = tree.setdefault(key, {})
    tree[path[-1]] = value


def generated_override(values):
    """Ingress on (with a host), replicas, persistence off, extra labels: the keys this chart has, two at most."""
    override, what = {}, []
    for path in find(values, "ingress"):
        ingress = values
        for key in path:
            ingress = ingress[key]
        if isinstance(ingress, dict) and ingress.get("enabled") is False:
            set_path(override, path + ("enabled",), True)
            if "hostname" in ingress:
                set_path(override, path + ("hostname",), "app.example.com")
            what.append("ingress on")
            break
    for key, value, description in (
        ("replicaCount", 3, "3 replicas"),
        ("replicas", 3, "3 replicas"),
    ):
        paths = [p for p in find(values, key) if isinstance(get(values, p), int) and not isinstance(get(values, p), bool)]
        if paths and len(what) < 2:
            set_path(override, paths[0], value)
            what.append(description)
            break
    persistence = [p for p in find(values, "persistence") if isinstance(get(values, p), dict) and get(values, p).get("enabled") is True]
    if persistence and len(what) < 2:
        set_path(override, persistence[0] + ("enabled",), False)
        what.append("persistence off")
    for key in ("commonLabels", "podLabels", "extraLabels", "additionalLabels", "customLabels", "labels"):
        paths = [p for p in find(values, key) if isinstance(get(values, p), dict)]
        if paths and len(what) < 2:
            set_path(override, paths[0], {"team": "platform", "tier": "backend"})
            what.append("extra labels")
            break
    return override, what


def deep_merge(base, overlay):
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            deep_merge(base[key], value)
        else:
            base[key] = value
    return base


def get(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def write_case(name, chart_rel, description, values):
    lines = [f"# {description}", f"chart: {chart_rel}", "release: demo", "namespace: apps"]
    if values:
        lines.append("values:")
        lines.append("  - |")
        for line in yaml.safe_dump(values, sort_keys=False, default_flow_style=False).splitlines():
            lines.append("    " + line)
    with open(os.path.join(HERE, "cases", name + ".yaml"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n" + RANDOM.get(name + ".yaml", ""))


def main(argv):
    global MIRRORS
    MIRRORS = argv[1]
    cases_only = "--cases-only" in argv
    rows = []
    if not cases_only:
        for source in {source for source, _ in CHARTS} | {"dandydeveloper", "grafana-community"}:
            if os.path.isdir(os.path.join(HERE, source)):
                shutil.rmtree(os.path.join(HERE, source))
    # The `random:` lists random_fields.py wrote are kept; cases of charts no longer imported are removed.
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    for name in os.listdir(os.path.join(HERE, "cases")):
        with open(os.path.join(HERE, "cases", name), encoding="utf-8") as handle:
            text = handle.read()
        if "\nrandom:\n" in text:
            RANDOM[name] = text[text.index("\nrandom:\n") + 1 :]
        os.remove(os.path.join(HERE, "cases", name))
    for source, chart in CHARTS:
        mirror, pattern, licence = SOURCES[source]
        name, _, path = chart.partition("=")
        path = path or pattern.format(name)
        path = path.rstrip("/")
        dest = os.path.join(HERE, source, name)
        label = f"{source}/{name}"
        tag, release_version = RELEASE_TAGS.get((source, name), (None, None))
        commit = git(mirror, "rev-parse", (tag or "HEAD") + "^{commit}").strip()
        if not cases_only:
            licence_files(source)
            copy_chart(mirror, commit, path, dest, apply_helmignore=True)
            if release_version:
                set_version(os.path.join(dest, "Chart.yaml"), release_version, release_version)
            vendor_dependencies(dest, label)
        with open(os.path.join(dest, "Chart.yaml"), encoding="utf-8") as handle:
            version = yaml.safe_load(handle).get("version")
        with open(os.path.join(dest, "values.yaml"), encoding="utf-8") as handle:
            values = yaml.safe_load(handle) or {}
        rows.append((name, version, source, commit, licence, tag, release_version))
        case = f"{source}--{name}"
        required = REQUIRED.get(label, {})
        write_case(case, f"../{source}/{name}", f"{label} {version} with its default values", required)
        override, what = OVERRIDES.get(label) or generated_override(values)
        merged = deep_merge(json.loads(json.dumps(required)), override)
        write_case(case + "--override", f"../{source}/{name}", f"{label} {version}: {', '.join(what)}", merged)
    if not cases_only:
        write_sources(rows)


def write_sources(rows):
    out = [
        "# Sources of the public chart corpus",
        "",
        "Written by `import.py`. Each chart is its source repository's tree at the commit named, without README.md and",
        "CHANGELOG.md; each repository's licence is in `<source>/`.",
        "",
        "| chart | version | repository | commit | licence |",
        "|---|---|---|---|---|",
    ]
    for name, version, source, commit, licence, tag, release_version in rows:
        mirror = SOURCES[source][0].replace("+", "/")
        where = f"{commit[:12]}" + (f" (tag {tag})" if tag else "")
        if release_version:
            where += f"; version and appVersion set to {release_version} as its release tool sets them"
        out.append(f"| {source}/{name} | {version} | github.com/{mirror} | {where} | {licence} |")
    out += [
        "",
        "## Vendored dependencies",
        "",
        "Under the chart's `charts/<name>/`, as `helm dependency build` places them, from the earliest commit of the",
        "dependency's source whose Chart.yaml has the version pinned (with its own .helmignore applied, as `helm",
        "package` applies it).",
        "",
        "| dependency | version | repository | commit | licence | vendored into | version from |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, version, source, commit, into, note in VENDORED:
        mirror, _, licence = SOURCES[source]
        if (name, version) in VENDOR_NOTES:
            note += f"; {VENDOR_NOTES[(name, version)]}"
        out.append(
            f"| {name} | {version} | github.com/{mirror.replace('+', '/')} | {commit[:12]} | {licence} | {into} | {note} |"
        )
    with open(os.path.join(HERE, "SOURCES.md"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
