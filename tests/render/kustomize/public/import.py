#!/usr/bin/env python3
"""Rebuild the public Kustomize corpus from bare git mirrors of its sources.

usage: import.py MIRRORS_DIR [--remote-only]

MIRRORS_DIR holds one bare mirror per repository, named `owner+name/repo` (the layout the corpus was fetched
into). Each source's directories are copied as they are at the mirror's HEAD into `<source>/<path>`, with the
repository's LICENSE beside them, and SOURCES.md is rewritten with the commits taken.

Then the remote git bases the sources' kustomizations name at a pinned ref (`github.com/org/repo/path?ref=v1`)
are vendored under `remote/<host>/<org>/<repo>@<ref>/`: of each repository at that ref, only the directories the
kustomizations reach (their `resources`, `components` and `bases`, followed inside the remote repository, and any
file or directory outside them a kustomization names), with its LICENSE. A repository whose mirror is missing, or
lacks the ref, is skipped (its kustomizations stay "needs the network"). Files over HTTP are not vendored.
`--remote-only` vendors only the remote bases (and rewrites only their section of SOURCES.md).
"""

import io
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tarfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))

# source directory name, repository, directories taken whole, files left out (and why, in SOURCES.md).
SOURCES = [
    ("kustomize", "kubernetes-sigs/kustomize", ["examples"], {}),
    (
        "argo-cd",
        "argoproj/argo-cd",
        ["manifests", "applicationset/examples", "test/e2e/testdata"],
        {
            # The install bundles `make manifests` writes from the kustomizations (1.4-2 MB each); no
            # kustomization reads them.
            "manifests/install.yaml": "generated",
            "manifests/install-with-hydrator.yaml": "generated",
            "manifests/namespace-install.yaml": "generated",
            "manifests/namespace-install-with-hydrator.yaml": "generated",
            "manifests/core-install.yaml": "generated",
            "manifests/core-install-with-hydrator.yaml": "generated",
            "manifests/ha/install.yaml": "generated",
            "manifests/ha/install-with-hydrator.yaml": "generated",
            "manifests/ha/namespace-install.yaml": "generated",
            "manifests/ha/namespace-install-with-hydrator.yaml": "generated",
        },
    ),
    ("flux2", "fluxcd/flux2", ["manifests"], {}),
    ("flux2-kustomize-helm-example", "fluxcd/flux2-kustomize-helm-example", ["apps", "clusters", "infrastructure"], {}),
    ("microservices-demo", "GoogleCloudPlatform/microservices-demo", ["kustomize"], {}),
    (
        "kubebuilder",
        "kubernetes-sigs/kubebuilder",
        [
            "testdata/project-v4/config",
            "testdata/project-v4-multigroup/config",
            "testdata/project-v4-with-plugins/config",
        ],
        {},
    ),
    (
        "cluster-api",
        "kubernetes-sigs/cluster-api",
        ["core/config", "bootstrap/kubeadm/config", "controlplane/kubeadm/config"],
        {},
    ),
    ("metrics-server", "kubernetes-sigs/metrics-server", ["manifests"], {}),
    ("gatekeeper", "open-policy-agent/gatekeeper", ["config"], {}),
    ("metallb", "metallb/metallb", ["config"], {}),
    (
        "node-feature-discovery",
        "kubernetes-sigs/node-feature-discovery",
        ["deployment/base", "deployment/components", "deployment/overlays", "deployment/nodefeaturerule"],
        {},
    ),
    (
        "kubeflow",
        "kubeflow/manifests",
        [
            "applications/pipeline/upstream",
            "applications/katib/upstream",
            "applications/profiles/upstream",
            "applications/jupyter",
            "applications/tensorboard",
            "applications/pvcviewer-controller",
            "applications/centraldashboard",
            "applications/model-registry/upstream",
            "common/dex",
            "common/oauth2-proxy",
            "common/kubeflow-namespace",
        ],
        {},
    ),
    ("ingress-nginx", "kubernetes/ingress-nginx", ["deploy"], {}),
    ("descheduler", "kubernetes-sigs/descheduler", ["kubernetes"], {}),
    ("gpu-operator", "NVIDIA/gpu-operator", ["config"], {}),
    ("external-dns", "kubernetes-sigs/external-dns", ["kustomize"], {}),
    ("reloader", "stakater/Reloader", ["deployments/kubernetes"], {}),
    ("vertical-pod-autoscaler", "kubernetes/autoscaler", ["vertical-pod-autoscaler/deploy"], {}),
    ("kueue", "kubernetes-sigs/kueue", ["config"], {}),
    ("cloudnative-pg", "cloudnative-pg/cloudnative-pg", ["config"], {}),
    ("opentelemetry-operator", "open-telemetry/opentelemetry-operator", ["config"], {}),
    ("argo-events", "argoproj/argo-events", ["manifests"], {}),
]


def git(mirror, *args):
    return subprocess.run(["git", "--git-dir", mirror, *args], check=True, capture_output=True).stdout


# `[https://]github.com/org/repo[/path | //path][?ref=REF&...]`: the remote git bases this corpus vendors (pinned
# refs only; a release asset, `/releases/download/`, is a file over HTTP).
REMOTE = re.compile(r"^(?:https://)?github\.com/([^/]+)/([^/?]+?)(?:\.git)?((?:/+[^?]*)?)\?(.*)$")
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def remote_entries():
    """Every remote git base at a pinned ref named by a kustomization of the corpus: (org, repo, path, ref)."""
    found = set()
    for top, dirs, files in os.walk(HERE):
        dirs[:] = sorted(d for d in dirs if not (top == HERE and d == "remote"))
        for name in files:
            if name not in KUSTOMIZATION_FILES:
                continue
            try:
                with open(os.path.join(top, name)) as f:
                    kustomization = yaml.safe_load(f)
            except (yaml.YAMLError, UnicodeDecodeError):
                continue
            if not isinstance(kustomization, dict):
                continue
            entries = [
                e for field in ("resources", "bases", "components") for e in kustomization.get(field) or []
            ]
            pinned = []
            for entry in entries:
                if not isinstance(entry, str) or "/releases/download/" in entry:
                    continue
                match = REMOTE.match(entry + ("" if "?" in entry else "?"))
                if not match:
                    continue
                org, repo, path, query = match.groups()
                ref = next((p[4:] for p in query.split("&") if p.startswith("ref=")), "")
                pinned.append((org, repo, path.strip("/"), ref))
            # A kustomization that also names a remote base at no ref stays "needs the network": none of its
            # remote bases are vendored.
            if all(ref for _, _, _, ref in pinned):
                found.update(pinned)
    return sorted(found)


def reached(mirror, ref, start):
    """The paths of `mirror` at `ref` the kustomization in `start` reaches: its directory, and every directory or
    file any string of it names outside that directory, followed transitively."""
    paths, todo, seen = set(), [start], set()

    def kind(path):
        out = subprocess.run(
            ["git", "--git-dir", mirror, "cat-file", "-t", f"{ref}:{path}"], capture_output=True
        ).stdout.decode().strip()
        return out or None

    while todo:
        dir_ = todo.pop()
        if dir_ in seen:
            continue
        seen.add(dir_)
        paths.add(dir_)
        text = None
        for name in KUSTOMIZATION_FILES:
            shown = subprocess.run(["git", "--git-dir", mirror, "show", f"{ref}:{dir_}/{name}"], capture_output=True)
            if shown.returncode == 0:
                text = shown.stdout
                break
        if text is None:
            continue
        strings = []

        def walk(value):
            if isinstance(value, str):
                strings.append(value)
            elif isinstance(value, dict):
                for v in value.values():
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)

        walk(yaml.safe_load(text))
        for value in strings:
            if "\n" in value or "://" in value or value.startswith("/"):
                continue
            path = posixpath.normpath(posixpath.join(dir_, value))
            if path.startswith("..") or path == dir_ or path.startswith(dir_ + "/"):
                continue
            found = kind(path)
            if found == "tree":
                todo.append(path)
            elif found == "blob":
                paths.add(path)
    # Paths inside another path taken are taken with it.
    return sorted(p for p in paths if not any(p.startswith(q + "/") for q in paths))


def vendor_remote(mirrors):
    """Vendors the pinned remote git bases; returns rows (repository, ref, commit, paths) and what was skipped."""
    by_repo = {}
    for org, repo, path, ref in remote_entries():
        by_repo.setdefault((org, repo, ref), []).append(path)
    shutil.rmtree(os.path.join(HERE, "remote"), ignore_errors=True)
    rows, skipped = [], []
    for (org, repo, ref), starts in sorted(by_repo.items()):
        mirror = os.path.join(mirrors, f"{org}+{repo}", "repo")
        resolved = subprocess.run(
            ["git", "--git-dir", mirror, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}"], capture_output=True
        )
        if resolved.returncode != 0:
            why = "the mirror lacks the ref" if os.path.isdir(mirror) else "no mirror"
            skipped.append((f"github.com/{org}/{repo}", ref, why))
            continue
        commit = resolved.stdout.decode().strip()
        tag = subprocess.run(
            ["git", "--git-dir", mirror, "rev-parse", "--verify", "-q", f"refs/tags/{ref}"], capture_output=True
        )
        if tag.returncode != 0 and not re.fullmatch(r"[0-9a-f]{40}", ref):
            skipped.append((f"github.com/{org}/{repo}", ref, "not a tag or a commit: a branch moves"))
            continue
        paths = sorted({p for start in starts for p in reached(mirror, commit, start)})
        paths = [p for p in paths if not any(p.startswith(q + "/") for q in paths)]
        names = git(mirror, "ls-tree", "--name-only", commit).decode().split()
        licence = next(n for n in ("LICENSE", "LICENSE.md", "LICENSE.txt") if n in names)
        dest = os.path.join(HERE, "remote", "github.com", org, f"{repo}@{ref}")
        os.makedirs(dest)
        archive = git(mirror, "archive", "--format=tar", commit, licence, *paths)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(dest, members=[m for m in tar.getmembers() if not m.issym()], filter="data")
        rows.append((f"github.com/{org}/{repo}", ref, commit, paths))
    return rows, skipped


REMOTE_HEADING = "\n## Remote bases\n"


def write_remote_section(mirrors):
    """Vendors the remote bases and writes their section at the end of SOURCES.md (replacing any)."""
    remote, skipped = vendor_remote(mirrors)
    sources_md = os.path.join(HERE, "SOURCES.md")
    with open(sources_md) as f:
        text = f.read().split(REMOTE_HEADING)[0]
    text += (
        REMOTE_HEADING
        + "\nThe remote git bases the kustomizations above name at a pinned ref, vendored by `import.py` under\n"
        "`remote/<host>/<org>/<repo>@<ref>/` with the repository's LICENSE: only the paths they reach (their\n"
        "`resources`, `components` and `bases` followed inside the remote repository). The harness serves each to\n"
        "kubectl from a local git repository tagged with the ref, and lays it where Weft's host would.\n\n"
        "| repository | ref | commit | paths | licence |\n|---|---|---|---|---|\n"
    )
    for repository, ref, commit, paths in remote:
        dirs = ", ".join(f"`{p}`" for p in paths)
        text += f"| {repository} | {ref} | {commit[:12]} | {dirs} | Apache-2.0 |\n"
    for repository, ref, why in skipped:
        text += f"\nNot vendored: {repository} at {ref} ({why}).\n"
    with open(sources_md, "w") as f:
        f.write(text)


def main():
    mirrors = sys.argv[1]
    if sys.argv[2:] == ["--remote-only"]:
        write_remote_section(mirrors)
        return
    rows = []
    for source, repo, paths, left_out in SOURCES:
        mirror = os.path.join(mirrors, repo.replace("/", "+"), "repo")
        commit = git(mirror, "rev-parse", "HEAD^{commit}").decode().strip()
        dest = os.path.join(HERE, source)
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        names = git(mirror, "ls-tree", "--name-only", commit).decode().split()
        licence = next(n for n in ("LICENSE", "LICENSE.md", "LICENSE.txt") if n in names)
        archive = git(mirror, "archive", "--format=tar", commit, licence, *paths)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            members = [m for m in tar.getmembers() if m.name not in left_out and not m.issym()]
            tar.extractall(dest, members=members, filter="data")
        rows.append((source, repo, commit, paths, left_out))
    with open(os.path.join(HERE, "SOURCES.md"), "w") as out:
        out.write("# Sources of the public Kustomize corpus\n\n")
        out.write(
            "Written by `import.py`. Each source is its repository's directories at the commit named, as they are "
            "there;\neach repository's licence is `<source>/LICENSE` (or `LICENSE.md`).\n\n"
        )
        out.write("| source | repository | commit | directories | licence |\n|---|---|---|---|---|\n")
        for source, repo, commit, paths, _ in rows:
            dirs = ", ".join(f"`{p}`" for p in paths)
            out.write(f"| {source} | github.com/{repo} | {commit[:12]} | {dirs} | Apache-2.0 |\n")
        out.write(
            "| kustomize-markdown | github.com/kubernetes-sigs/kustomize | (as kustomize) | the files the shell sessions "
            "of `examples/*.md` write, by `extract_markdown.py` | Apache-2.0 |\n"
        )
        out.write("\nLeft out of the directories taken:\n\n")
        for source, _, _, _, left_out in rows:
            for path, why in left_out.items():
                out.write(f"- {source}: `{path}` ({why})\n")


if __name__ == "__main__":
    main()
    if sys.argv[2:] != ["--remote-only"]:
        subprocess.run([sys.executable, os.path.join(HERE, "extract_markdown.py")], check=True)
        # After the documents' kustomizations are written: their remote bases are vendored too.
        write_remote_section(sys.argv[1])
