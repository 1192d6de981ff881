#!/usr/bin/env python3
"""Writes out the kustomizations that Kustomize's example documents (`kustomize/examples/*.md`) create.

usage: extract_markdown.py

Each document is a shell session (its code blocks fenced bare or as sh, shell or bash; Kustomize's own tests run
those marked `@test`): it makes directories under `$DEMO_HOME` and writes files with `cat <<EOF >FILE` heredocs.
Those files are written here under `kustomize-markdown/<document>/` as the whole session leaves them: a later
block that writes a file again replaces it, and an unquoted heredoc expands `$VARIABLES` as the shell does (an
unset one to nothing). A document whose session changes files any other way (`kustomize edit`, `sed -i`, `curl`,
`cp`, `mv`, `rm`, `chmod`, `go build`, a redirection other than a build's output) cannot be written out
faithfully and is left out, with the reason printed (SOURCES.md lists them).
"""

import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "kustomize", "examples")
OUT = os.path.join(HERE, "kustomize-markdown")

WRITES = re.compile(r"^\s*(kustomize\s+(edit|create|cfg|fn|localize)|sed\s+-i|curl\b|wget\b|cp\b|mv\b|rm\b|chmod\b|"
                    r"go\s+(build|get|install|run)|ln\b|git\b|helm\b|tar\b|touch\b)")
ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
HEREDOC = re.compile(r"^\s*cat\s+<<-?\s*(['\"]?)([A-Za-z_]+)\1\s*(>>?)\s*(\S+)\s*$")
HEREDOC_AFTER = re.compile(r"^\s*cat\s+(>>?)\s*(\S+)\s+<<-?\s*(['\"]?)([A-Za-z_]+)\3\s*$")
MKDIR = re.compile(r"^\s*mkdir\s+(-p\s+)?(.+)$")
REDIRECT = re.compile(r"(^|[^0-9&<])>{1,2}\s*[^&\s]")


class Unfaithful(Exception):
    pass


def expand(text, env, allow_command=False):
    if "$(" in text and not allow_command and "$(kustomize build" not in text:
        raise Unfaithful(f"command substitution in {text.strip()[:60]!r}")
    def var(m):
        name = m.group(1) or m.group(2)
        return env.get(name, "")  # as the shell expands an unset variable
    escaped = text.split("\\$")
    escaped = [re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", var, part) for part in escaped]
    return "$".join(escaped)


def blocks(markdown):
    """The shell code blocks (fenced bare or as sh, shell or bash), in order."""
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("```"):
            shell = line[3:].strip() in ("", "sh", "shell", "bash")
            body = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                body.append(lines[i])
                i += 1
            if shell:
                yield body
        i += 1


def run(markdown, root):
    env = {}
    files = {}
    dirs = set()
    for body in blocks(markdown):
        i = 0
        while i < len(body):
            line = body[i]
            i += 1
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            heredoc, after = HEREDOC.match(line), HEREDOC_AFTER.match(line)
            if heredoc or after:
                if heredoc:
                    quoted, tag, mode, target = heredoc.groups()
                else:
                    mode, target, quoted, tag = after.groups()
                content = []
                while i < len(body) and body[i].rstrip() != tag:
                    content.append(body[i])
                    i += 1
                if i >= len(body):
                    raise Unfaithful(f"heredoc {tag} not closed")
                i += 1
                text = "\n".join(content) + "\n"
                if not quoted:
                    text = expand(text, env)
                path = expand(target, env)
                if not path.startswith(root):
                    raise Unfaithful(f"writes outside $DEMO_HOME: {path}")
                files[path] = (files.get(path, "") if mode == ">>" else "") + text
                continue
            if WRITES.match(line):
                raise Unfaithful(f"changes files with {stripped[:60]!r}")
            assign = ASSIGN.match(stripped)
            if assign:
                name, value = assign.groups()
                if value == "$(mktemp -d)":
                    env[name] = root
                else:
                    env[name] = expand(value.strip('"'), env)
                continue
            if stripped.startswith(("kustomize build", "diff ", "test ", "echo ", "grep ")) and not re.search(
                r">\s*\$DEMO_HOME/[^ ]*/", stripped
            ):
                # Reads and compares; a build's output written to $DEMO_HOME is no input of a kustomization.
                continue
            mkdir = MKDIR.match(line)
            if mkdir:
                for d in mkdir.group(2).split():
                    dirs.add(expand(d, env))
                continue
            if REDIRECT.search(line.split("#")[0]) and "/dev/null" not in line:
                raise Unfaithful(f"writes with a redirection: {stripped[:60]!r}")
    return files, dirs


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    left_out = {}
    taken = []
    for name in sorted(os.listdir(EXAMPLES)):
        if not name.endswith(".md") or name == "README.md":
            continue
        doc = name[:-3]
        root = "/DEMO_HOME/" + doc
        with open(os.path.join(EXAMPLES, name)) as f:
            markdown = f.read()
        try:
            files, dirs = run(markdown, root)
        except Unfaithful as why:
            left_out[name] = str(why)
            continue
        if not any(os.path.basename(p) in ("kustomization.yaml", "kustomization.yml", "Kustomization")
                   for p in files):
            left_out[name] = "writes no kustomization"
            continue
        for d in dirs:
            os.makedirs(os.path.join(OUT, doc, os.path.relpath(d, root)), exist_ok=True)
        for path, text in files.items():
            dest = os.path.join(OUT, doc, os.path.relpath(path, root))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w") as f:
                f.write(text)
        taken.append(name)
    shutil.copy(os.path.join(HERE, "kustomize", "LICENSE"), os.path.join(OUT, "LICENSE"))
    print("written:", " ".join(taken))
    for name, why in sorted(left_out.items()):
        print(f"left out: {name}: {why}")


if __name__ == "__main__":
    main()
