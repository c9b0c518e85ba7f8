#!/usr/bin/env python3
"""Checks the articles of the DocC catalogs and the README for what DocC does not check.

1. Every ```swift block is compiled code: it appears in a Swift file that the build or the tests
   compile (Sources/, Tests/, Examples/), so a renamed API breaks the build, not the reader.
2. No article links to a Markdown file (`[text](Other.md)`): DocC does not resolve such links, so
   they would be dead on the site; articles link with <doc:Other>.

How a block is matched (Docs/Documentation.md explains it for contributors):
  - Lines are compared trimmed, with runs of spaces as one space; blank lines do not count.
  - `…` stands for any text, across lines: `init(url: URL) { … }` matches a whole initializer,
    and a line that is only `…` or `// …` any number of lines. A comment that contains `…`
    (`/* … */`, `// … serve …`) is elided with it.
  - `import X` lines of the block must be imports of the file the rest is found in.
  - A line of a Swift file that ends in `// hidden in the docs` is left out of the comparison:
    the test function around an example, a line that binds what the example uses.
  - `<!-- code: Sources/scopegraph-server/ServerApp.swift -->` right before a block limits the
    search to that file (a comma-separated list of paths works too), and says where the code
    comes from; without it, every compiled Swift file is searched.
  - `<!-- not compiled: reason -->` right before a block exempts it (a Package.swift fragment,
    code that deliberately does not compile); the reason is printed.
Usage: check-articles.py [--verbose]   (from anywhere; paths are relative to the repository)
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ARTICLES = sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "*.docc", "**", "*.md"), recursive=True)) + [
    os.path.join(ROOT, "README.md")]
SOURCE_DIRS = ["Sources", "Tests", "Examples"]
ELLIPSIS = "\u2026"


def rel(path):
    return os.path.relpath(path, ROOT)


def normalize(line):
    return re.sub(r"\s+", " ", line.strip())


def swift_files():
    for directory in SOURCE_DIRS:
        for path in glob.glob(os.path.join(ROOT, directory, "**", "*.swift"), recursive=True):
            if "/.build" not in path:
                yield path


HIDDEN = "// hidden in the docs"


def load(path):
    with open(path, encoding="utf-8") as f:
        lines = [normalize(l) for l in f.read().split("\n")]
    lines = [l for l in lines if l and not l.endswith(HIDDEN)]
    return "\n".join(lines) + "\n", {l.split()[1] for l in lines if re.match(r"^(@testable )?import \w+$", l)
                                     or re.match(r"^import \w+$", l)}


def blocks(path):
    """Yields (line number, language, code lines, directives above it) for each fenced block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    code_source = None
    pending_exemption = None
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = re.match(r"^\s*<!--\s*(code|not compiled):\s*(.*?)\s*-->\s*$", line)
        if directive:
            if directive.group(1) == "code":
                code_source = [p.strip() for p in directive.group(2).split(",")]
            else:
                pending_exemption = directive.group(2)
            i += 1
            continue
        fence = re.match(r"^(\s*)(```+)\s*(\w*)\s*$", line)
        if fence:
            indent, ticks, language = fence.groups()
            start = i + 1
            j = start
            while j < len(lines) and not re.match(r"^\s*" + ticks + r"\s*$", lines[j]):
                j += 1
            code = [l[len(indent):] if l.startswith(indent) else l for l in lines[start:j]]
            yield start, language, code, code_source, pending_exemption
            code_source = pending_exemption = None
            i = j + 1
            continue
        if line.strip():
            code_source = pending_exemption = None
        i += 1


def pattern(code):
    """The block as a regular expression over a normalized file, and its import lines."""
    imports, parts = set(), []
    for raw in code:
        line = normalize(raw)
        if not line:
            continue
        m = re.match(r"^import (\w+)$", line)
        if m:
            imports.add(m.group(1))
            continue
        if ELLIPSIS in line:
            # A comment holding the ellipsis is elided with it.
            line = re.sub(r"/\*[^*]*" + ELLIPSIS + r"[^*]*\*/", ELLIPSIS, line)
            line = re.sub(r"//[^\n]*" + ELLIPSIS + r".*$", ELLIPSIS, line)
            if line.strip() == ELLIPSIS:
                parts.append(r"(?:[^\n]*\n)*?")
                continue
            pieces = [re.escape(p.strip()) for p in line.split(ELLIPSIS)]
            body = r"[\s\S]*?".join(pieces)
            parts.append(r"^" + body + r"[^\n]*\n" if line.endswith(ELLIPSIS) else r"^" + body + r"\n")
        else:
            parts.append(r"^" + re.escape(line) + r"\n")
    return imports, "".join(parts)


def closest(code, files):
    """The file and line count of the longest run of the block's first lines found verbatim."""
    wanted = [normalize(l) for l in code if normalize(l) and not normalize(l).startswith("import ")]
    best = (0, None)
    for path, (text, _) in files.items():
        lines = text.split("\n")
        for k, line in enumerate(lines):
            n = 0
            while n < len(wanted) and k + n < len(lines) and ELLIPSIS not in wanted[n] and lines[k + n] == wanted[n]:
                n += 1
            if n > best[0]:
                best = (n, path)
    n, path = best
    if path is None:
        return "no line of it was found in any compiled Swift file"
    first_missing = wanted[n] if n < len(wanted) else "(end)"
    return f"closest: {rel(path)} matches its first {n} line(s); then expected: {first_missing}"


def main():
    verbose = "--verbose" in sys.argv
    files = {path: load(path) for path in swift_files()}
    failures, checked, exempt = [], 0, []
    for article in ARTICLES:
        with open(article, encoding="utf-8") as f:
            for number, line in enumerate(f.read().split("\n"), 1):
                for target in re.findall(r"\]\(([^)<>\s]+\.md(?:#[^)]*)?)\)", line):
                    if not target.startswith("http") and article.endswith("README.md") is False:
                        failures.append(f"{rel(article)}:{number}: a Markdown link to {target}; "
                                        "link articles with <doc:Name> (DocC does not resolve .md links)")
        for number, language, code, source, exemption in blocks(article):
            if language != "swift":
                continue
            where = f"{rel(article)}:{number}"
            if exemption is not None:
                exempt.append(f"{where}: not compiled: {exemption}")
                continue
            checked += 1
            imports, regex = pattern(code)
            if not regex and not imports:
                failures.append(f"{where}: a swift block with nothing to check; mark it <!-- not compiled: why -->")
                continue
            candidates = files
            if source:
                candidates = {}
                for p in source:
                    full = os.path.join(ROOT, p)
                    if full not in files:
                        failures.append(f"{where}: <!-- code: {p} --> names no compiled Swift file")
                    else:
                        candidates[full] = files[full]
            compiled = re.compile(regex, re.M)  # an empty pattern: a block of imports only
            found = [p for p, (text, file_imports) in candidates.items()
                     if imports <= file_imports and compiled.search(text)]
            if found:
                if verbose:
                    print(f"ok {where}: {', '.join(rel(p) for p in sorted(found))}")
            else:
                failures.append(f"{where}: this swift block is not in any compiled Swift file"
                                f"{' (' + ', '.join(source) + ')' if source else ''}; {closest(code, candidates)}")
    for line in exempt:
        print(line)
    if failures:
        print(f"error: {len(failures)} problem(s) in the articles and the README:")
        for failure in failures:
            print(f"  {failure}")
        print("Each swift block must appear in a compiled Swift file (put the example in the article's test,\n"
              "Tests/*/Articles/<Article>ArticleTests.swift, and keep the two equal); see Docs/Documentation.md.")
        return 1
    print(f"ok: {checked} swift blocks found in compiled code, {len(exempt)} marked not compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
