#!/usr/bin/env python3
"""Fails when a public symbol is missing from the Topics groups of the DocC catalogs.

DocC places a symbol nobody curated in a generated group ("Structures", "Instance Methods"),
which is not a group a user would look under, and does not warn about it. This check reads the
archives that `docc convert` built (Scripts/build-docs) and lists every symbol that must be
curated by hand but was not. Usage: check-curation.py ARCHIVE.doccarchive...

What must be curated (the granularity, documented in Docs/Documentation.md):
  - every top-level symbol of a module (types, protocols, free functions): in the module's
    landing page or in another page's Topics;
  - every member of the types whose members are the API a user looks for by task:
    ScopeGraph's Container, Resolving, Resolver and Registration (in Extensions/<Type>.md);
  - every symbol a module adds to another module's type (ScopeGraphTesting's Container and
    Trait extensions), and the members of ScopeGraphTesting's own types that are not
    Swift Testing's trait requirements.
Members synthesized by the compiler (protocol default implementations seen on a conforming
type) and the requirements of Swift Testing's trait protocols are left to DocC's automatic
curation under their type.
"""
import json
import os
import sys

CURATED_MEMBERS_OF = {"ScopeGraph": {"Container", "Resolving", "Resolver", "Registration"}}
# Requirements of Swift Testing's TestTrait/SuiteTrait/TestScoping that every trait type
# implements: documented by Swift Testing, left to automatic curation.
TRAIT_REQUIREMENTS = {"comments", "isRecursive", "prepare(for:)", "scopeProvider(for:testCase:)",
                      "provideScope(for:testCase:performing:)"}


def pages(archive):
    """Yields (path, render node) for every page of the archive."""
    root = os.path.join(archive, "data", "documentation")
    for directory, _, files in os.walk(root):
        for name in files:
            if name.endswith(".json"):
                path = os.path.join(directory, name)
                with open(path) as f:
                    yield os.path.relpath(path, root)[: -len(".json")], json.load(f)


def main(archives):
    required = {}  # doc URL path -> title, for symbols that must be curated
    curated = set()
    for archive in archives:
        for _, node in pages(archive):
            for section in node.get("topicSections", []):
                if not section.get("generated", False):
                    curated.update(section.get("identifiers", []))
            meta = node.get("metadata", {})
            usr = meta.get("externalID")
            if not usr or meta.get("role") == "collectionGroup" or "::SYNTHESIZED::" in usr:
                continue
            if meta.get("symbolKind") == "extension":
                continue  # the page of an extended module or type: its members are what count
            identifier = node["identifier"]["url"]
            # doc://bundle/documentation/Module/[ExtendedModule/]Type/member
            parts = identifier.split("/documentation/", 1)[1].split("/")
            module, rest = parts[0], parts[1:]
            extended = meta.get("extendedModule")
            if extended and extended != module:
                # A symbol added to another module's type: documented under that module's name.
                if rest and rest[0] == extended:
                    rest = rest[1:]
                if len(rest) >= 2 and rest[-1] not in TRAIT_REQUIREMENTS:
                    required[identifier] = "/".join(parts)
                continue
            if len(rest) == 1:
                required[identifier] = "/".join(parts)
            elif len(rest) == 2 and (rest[0] in CURATED_MEMBERS_OF.get(module, set())
                                     or (module == "ScopeGraphTesting"
                                         and rest[1] not in TRAIT_REQUIREMENTS)):
                required[identifier] = "/".join(parts)
    missing = sorted(path for identifier, path in required.items() if identifier not in curated)
    if missing:
        print(f"error: {len(missing)} public symbol(s) missing from the Topics groups of the catalogs:")
        for path in missing:
            print(f"  {path}")
        print("Place each in a Topics group: the module's landing page (Sources/<Module>/<Module>.docc/"
              "<Module>.md) for a type, Extensions/<Type>.md for a member; see Docs/Documentation.md.")
        return 1
    print(f"ok: all {len(required)} public symbols that need curating are in a Topics group")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
