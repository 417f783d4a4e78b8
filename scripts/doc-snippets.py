#!/usr/bin/env python3
"""Turns every ```swift block of README.md, of the guides in docs/ (docs/*.md) and of the `///`
doc comments of Sources/LocalLLMKitEngine, Sources/LocalLLMKit, Sources/LocalLLMKitTools and
Sources/LocalLLMKitServer into one consumer package, so that a single `swift build` type-checks
them all (scripts/check-dependent-package builds and runs it).

Conventions (docs/testing.md, "Testing"):

- A block after `<!-- example:NAME -->` is a complete program: it becomes the executable
  target NAME, which is built and run (it must exit with status 0). `<!-- example:NAME
  build-only -->` marks one that needs a network or a model that neither bootstrap script
  installs: it is built, not run. A block with an `import` line must carry such a marker.
  Example names are unique across README.md and the guides.
- A block after `<!-- snippet:manifest -->` (exactly one, in README.md) is a Package.swift
  fragment: its `.package(...)`
  lines become the consumer's dependencies (with the URL replaced by the local clone) and its
  `.product(...)` lines the dependencies of every target, so the consumer's own manifest
  checks it.
- Every other block is a fragment: it becomes the body of its own `async throws` function,
  in its own file, importing Foundation, LocalLLMKit, LocalLLMKitTools and LocalLLMKitServer. The function's
  parameters are the names a fragment may use without declaring them (FRAGMENT_CONTEXT below);
  a fragment may also declare them again (`let model = ...` shadows the parameter). Types a
  fragment declares are local types of that function, so two fragments may both declare a
  `Letter`.

Diagnostics point at the documentation itself: each block is wrapped in `#sourceLocation`,
so an error reads `README.md:123:5: error: ...` or `docs/chat.md:40:9: error: ...`.
"""

import argparse
import os
import re
import sys

# The names a fragment may use without declaring them, with their types.
FRAGMENT_CONTEXT = [
    ("model", "LocalModel"),            # a loaded model
    ("conversation", "Conversation"),   # a conversation with `model`
    ("library", "ModelLibrary"),        # the model library
    ("url", "URL"),                     # a file: a GGUF model, a saved conversation, a template
    ("scannedText", "String"),          # some input text
]

IMPORTS = ["Foundation", "LocalLLMKit", "LocalLLMKitTools", "LocalLLMKitServer"]
DOC_GUIDES_DIR = "docs"            # every docs/*.md guide (not its subfolders)
DOC_SOURCE_DIRS = ["Sources/LocalLLMKitEngine", "Sources/LocalLLMKit", "Sources/LocalLLMKitTools", "Sources/LocalLLMKitServer"]

MARKER = re.compile(r"^\s*<!--\s*(example|snippet):(\S+)((?:\s+[\w-]+)*)\s*-->\s*$")
EXAMPLE_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
EXAMPLE_FLAGS = {"build-only"}
SNIPPET_KINDS = {"manifest"}


class Block:
    def __init__(self, path, line, code, kind, name=None, flags=()):
        self.path = path        # relative to the repository root
        self.line = line        # 1-based line of the block's first code line
        self.code = code        # list of lines, without the doc-comment prefix
        self.kind = kind        # "example", "manifest" or "fragment"
        self.name = name
        self.flags = set(flags)

    @property
    def location(self):
        return f"{self.path}:{self.line}"


class SnippetError(Exception):
    pass


def parse_marker(text, location):
    match = MARKER.match(text)
    if not match:
        return None
    kind, name, flags = match.group(1), match.group(2), match.group(3).split()
    if kind == "example":
        if not EXAMPLE_NAME.match(name):
            raise SnippetError(f"{location}: example name '{name}' must match {EXAMPLE_NAME.pattern}")
        unknown = set(flags) - EXAMPLE_FLAGS
        if unknown:
            raise SnippetError(f"{location}: unknown example flag(s) {sorted(unknown)}; known: {sorted(EXAMPLE_FLAGS)}")
        return ("example", name, flags)
    if name not in SNIPPET_KINDS or flags:
        raise SnippetError(f"{location}: unknown snippet marker '{text.strip()}'; known: "
                           + ", ".join(f"<!-- snippet:{k} -->" for k in sorted(SNIPPET_KINDS)))
    return (name, None, ())


def extract(path, lines, strip):
    """Finds the ```swift blocks in `lines`; `strip` returns a line's text (or None when the
    line is outside the kind of text that is searched, e.g. not a `///` line)."""
    blocks = []
    index = 0
    while index < len(lines):
        text = strip(lines[index])
        if text is None or not re.match(r"^\s*```\s*swift\s*$", text):
            index += 1
            continue
        fence_line = index + 1
        indent = len(text) - len(text.lstrip())
        # The marker, if any, is the nearest non-blank line above the fence.
        marker = None
        above = index - 1
        while above >= 0 and strip(lines[above]) is not None and not strip(lines[above]).strip():
            above -= 1
        if above >= 0 and strip(lines[above]) is not None:
            marker = parse_marker(strip(lines[above]), f"{path}:{above + 1}")
        code = []
        index += 1
        while True:
            if index >= len(lines) or strip(lines[index]) is None:
                raise SnippetError(f"{path}:{fence_line}: ```swift block is not closed")
            text = strip(lines[index])
            if re.match(r"^\s*```\s*$", text):
                break
            code.append(text[indent:] if text[:indent].strip() == "" else text)
            index += 1
        index += 1
        kind, name, flags = marker if marker else ("fragment", None, ())
        block = Block(path, fence_line + 1, code, kind, name, flags)
        if kind == "fragment" and any(re.match(r"^\s*import\s+\w", line) for line in code):
            raise SnippetError(f"{block.location}: a block with `import` is a complete program: mark it "
                               "<!-- example:NAME --> (or <!-- example:NAME build-only -->)")
        blocks.append(block)
    return blocks


def doc_comment_text(line):
    match = re.match(r"^\s*///(.*)$", line.rstrip("\n"))
    if not match:
        return None
    text = match.group(1)
    return text[1:] if text.startswith(" ") else text


def markdown_files(root):
    """README.md, then the guides docs/*.md in name order, as paths relative to `root`."""
    files = ["README.md"]
    guides = os.path.join(root, DOC_GUIDES_DIR)
    if os.path.isdir(guides):
        files += [f"{DOC_GUIDES_DIR}/{name}" for name in sorted(os.listdir(guides))
                  if name.endswith(".md") and os.path.isfile(os.path.join(guides, name))]
    return files


def collect(root):
    blocks = []
    for path in markdown_files(root):
        with open(os.path.join(root, path), encoding="utf-8") as file:
            blocks.extend(extract(path, file.read().split("\n"), lambda line: line))
    for directory in DOC_SOURCE_DIRS:
        for folder, subfolders, files in os.walk(os.path.join(root, directory)):
            subfolders.sort()
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                full = os.path.join(folder, name)
                with open(full, encoding="utf-8") as file:
                    found = extract(os.path.relpath(full, root), file.read().split("\n"), doc_comment_text)
                for block in found:
                    if block.kind != "fragment":
                        raise SnippetError(f"{block.location}: doc comments hold fragments only, no markers")
                blocks.extend(found)
    return blocks


def swift_identifier(text):
    return re.sub(r"[^A-Za-z0-9]", "_", text)


def fragment_file(block):
    parameters = ", ".join(f"{name}: {type}" for name, type in FRAGMENT_CONTEXT)
    lines = [f"// Generated by scripts/doc-snippets.py from {block.location}; edit the original."]
    lines += [f"import {module}" for module in IMPORTS]
    lines += [
        "",
        f"func snippet_{swift_identifier(block.location)}({parameters}) async throws {{",
        f'#sourceLocation(file: "{block.path}", line: {block.line})',
        *block.code,
        "#sourceLocation()",
        "}",
        "",
    ]
    return "\n".join(lines)


def example_file(block):
    return "\n".join([
        f"// Generated by scripts/doc-snippets.py from {block.location}; edit the original.",
        f'#sourceLocation(file: "{block.path}", line: {block.line})',
        *block.code,
        "#sourceLocation()",
        "",
    ])


def manifest(block, package_url):
    dependencies, products = [], []
    for offset, line in enumerate(block.code):
        text = re.sub(r'\s*//[^"]*$', "", line.strip())    # a trailing comment (not a URL's //)
        if not text:
            continue
        if text.startswith(".package("):
            replaced, count = re.subn(r'url:\s*"[^"]*"', f'url: "{package_url}"', text)
            if count != 1:
                raise SnippetError(f"{block.path}:{block.line + offset}: `.package(` line without one `url: \"...\"`")
            dependencies.append(replaced)
        elif text.startswith(".product("):
            products.append(text)
        else:
            raise SnippetError(f"{block.path}:{block.line + offset}: a manifest fragment holds only "
                               "`.package(...)` and `.product(...)` lines and comments")
    if not dependencies or not products:
        raise SnippetError(f"{block.location}: the manifest fragment needs a `.package(` and a `.product(` line")
    return dependencies, products


def generate(root, out, package_url):
    blocks = collect(root)
    manifests = [block for block in blocks if block.kind == "manifest"]
    if len(manifests) != 1 or manifests[0].path != "README.md":
        raise SnippetError("README.md needs exactly one <!-- snippet:manifest --> block (found "
                           + (", ".join(block.location for block in manifests) or "none") + ")")
    examples = [block for block in blocks if block.kind == "example"]
    fragments = [block for block in blocks if block.kind == "fragment"]
    names = {}
    for block in examples:
        if block.name in names:
            raise SnippetError(f"{block.location}: example name '{block.name}' is already used at {names[block.name]}")
        names[block.name] = block.location
    dependencies, products = manifest(manifests[0], package_url)

    def indented(items, depth):
        return "".join(" " * depth + item.rstrip(",") + ",\n" for item in items)

    targets = []
    for block in examples:
        targets.append(f'        .executableTarget(name: "{block.name}", dependencies: [\n'
                       + indented(products, 12) + f'        ], path: "Sources/{block.name}"),\n')
        os.makedirs(os.path.join(out, "Sources", block.name), exist_ok=True)
        with open(os.path.join(out, "Sources", block.name, "main.swift"), "w", encoding="utf-8") as file:
            file.write(example_file(block))
    targets.append('        .target(name: "Fragments", dependencies: [\n'
                   + indented(products, 12) + '        ], path: "Sources/Fragments"),\n')
    os.makedirs(os.path.join(out, "Sources", "Fragments"), exist_ok=True)
    for block in fragments:
        file_name = swift_identifier(block.location) + ".swift"
        with open(os.path.join(out, "Sources", "Fragments", file_name), "w", encoding="utf-8") as file:
            file.write(fragment_file(block))
    with open(os.path.join(out, "Package.swift"), "w", encoding="utf-8") as file:
        file.write(
            "// swift-tools-version: 6.0\n"
            f"// Generated by scripts/doc-snippets.py; the dependency lines come from {manifests[0].location}.\n"
            "import PackageDescription\n"
            "let package = Package(\n"
            '    name: "Consumer",\n'
            "    platforms: [.macOS(.v15)],\n"
            "    dependencies: [\n" + indented(dependencies, 8) + "    ],\n"
            "    targets: [\n" + "".join(targets) + "    ]\n"
            ")\n")
    # What check-dependent-package runs: one line per example, "NAME run|build-only LOCATION".
    with open(os.path.join(out, "examples.txt"), "w", encoding="utf-8") as file:
        for block in examples:
            mode = "build-only" if "build-only" in block.flags else "run"
            file.write(f"{block.name} {mode} {block.location}\n")
    running = sum(1 for block in examples if "build-only" not in block.flags)
    per_file = []
    for path in markdown_files(root):
        found = [block for block in blocks if block.path == path]
        if found:
            per_file.append(f"{path} {len(found)}")
    comment_fragments = sum(1 for block in fragments if not block.path.endswith(".md"))
    return (f"{len(blocks)} swift blocks ({len(examples)} examples, {running} of them run; "
            f"{len(fragments)} fragments; 1 manifest): " + ", ".join(per_file)
            + f", doc comments {comment_fragments}")


DIAGNOSTIC = re.compile(r"^(.+?):(\d+):(\d+): (error|warning|note|remark): ")


def build_errors(log_text):
    """The distinct errors of a `swift build` log, each with its notes and source excerpt
    (SwiftPM repeats a module's diagnostics once per file job; fragments' warnings are left out)."""
    blocks, seen, current = [], set(), None
    for line in log_text.split("\n"):
        match = DIAGNOSTIC.match(line)
        if match:
            kind = match.group(4)
            if kind == "error":
                current = [line] if line not in seen else None
                if current is not None:
                    seen.add(line)
                    blocks.append(current)
            elif kind != "note":
                current = None
            elif current is not None:
                current.append(line)
        elif re.match(r"^\[\d+/\d+\]", line) or not line.strip():
            current = None
        elif line.startswith("error: ") and line not in seen:
            seen.add(line)
            blocks.append([line])
            current = None
        elif current is not None:
            current.append(line)
    return "\n".join("\n".join(block) for block in blocks)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    generate_command = commands.add_parser("generate", help="write the consumer package")
    generate_command.add_argument("--root", required=True, help="the repository whose documentation is checked")
    generate_command.add_argument("--out", required=True, help="the consumer package's folder (created)")
    generate_command.add_argument("--package-url", required=True, help="the URL the consumer depends on")
    errors_command = commands.add_parser("errors", help="print the distinct errors of a swift build log")
    errors_command.add_argument("log")
    arguments = parser.parse_args()
    if arguments.command == "errors":
        with open(arguments.log, encoding="utf-8", errors="replace") as file:
            text = build_errors(file.read())
        if not text:
            sys.exit(1)
        print(text)
        return
    try:
        print(generate(arguments.root, arguments.out, arguments.package_url))
    except SnippetError as error:
        print(f"doc-snippets: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
