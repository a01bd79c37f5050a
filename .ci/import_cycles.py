#!/usr/bin/env python3
"""Import circles between the engine crate's modules (src/), as a ratchet.

A module is a file: src/lib.rs is the crate root, src/a.rs and src/a/mod.rs are `a`, src/a/b.rs
is `a::b`. Module A depends on module B when A's non-test code names a path into B: a `use`
tree or an inline path starting with `crate::`, `super::` or `self::`, or a path through one of
A's declared child modules (`child::item`). A path resolves to the longest prefix that is a
module (`crate::models::spec` is `models`, `crate::models::header::Label` is `models::header`),
and through re-exports (`pub use`) to the module that defines the item; a re-export itself is
no dependency. A module's own ancestors are its context, not a dependency: `super::Sequence` in
crf/train.rs does not tie train.rs to crf/mod.rs (else every directory module whose mod.rs
holds shared types would be a circle). Test-only code is left out: every item under a
`#[cfg(...)]` that names `test` (unit-test modules, `testutil`), since tests may reach
anywhere. A circle is a strongly connected component of two or more modules.

Layers: the training-time modules (`corpus` and `training`, with their children: corpus
readers, lexicon building, the models' specs and the training driver) sit above the run-time
engine. No other module may depend on them; such a dependency fails the check (no baseline).

    .ci/import_cycles.py                   print the circles; exit 1 when a circle is new or
                                           larger than in the baseline (import_cycles.baseline)
    .ci/import_cycles.py --write-baseline  accept the current circles as the baseline
    .ci/import_cycles.py --edges A B       print why A depends on B (the paths named)

The baseline holds one accepted circle per line (its files, space-separated). Each current
circle must lie inside one accepted circle; a baseline circle that shrank or vanished is
reported so that the baseline can be tightened.
"""

import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "import_cycles.baseline")


def module_files():
    """Module path (tuple of segments) -> file path relative to the repository root."""
    mods = {}
    for dirpath, _, files in os.walk(SRC):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), SRC)
            parts = rel[:-3].split(os.sep)
            if parts == ["lib"]:
                key = ()
            elif parts[-1] == "mod":
                key = tuple(parts[:-1])
            elif parts == ["main"] or parts[0] == "bin":
                continue
            else:
                key = tuple(parts)
            mods[key] = os.path.join("src", rel)
    return mods


def strip_comments_and_strings(text):
    """The code with comments, string and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        out.append("\n")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c == '"' or (c == "b" and text.startswith('b"', i) and not (i and text[i - 1].isalnum())):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}') or a lifetime ('a).
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if m:
                out.append("' '")
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def skip_item(code, i):
    """Index just past the item starting at `i` (ends at a `;` or a balanced `{}` block)."""
    depth = 0
    n = len(code)
    while i < n:
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth == 0:
            return i + 1
        elif c == "{" and depth == 0:
            braces, i = 1, i + 1
            while i < n and braces:
                braces += {"{": 1, "}": -1}.get(code[i], 0)
                i += 1
            return i
        i += 1
    return n


CFG_TEST = re.compile(r"#\[\s*cfg\s*\(([^\]]*)\)\s*\]")


def without_test_items(code):
    """The code with every item under a `#[cfg(..test..)]` attribute removed."""
    out, i = [], 0
    while True:
        m = CFG_TEST.search(code, i)
        if not m:
            out.append(code[i:])
            return "".join(out)
        if not re.search(r"\btest\b", m.group(1)) or re.search(r"not\s*\(\s*test", m.group(1)):
            out.append(code[i:m.end()])
            i = m.end()
            continue
        out.append(code[i:m.start()])
        j = m.end()
        # Further attributes of the same item.
        while True:
            a = re.match(r"\s*#\[", code[j:])
            if not a:
                break
            j = skip_balanced(code, j + a.end() - 1, "[", "]")
        end = skip_item(code, j)
        out.append("\n" * code.count("\n", m.start(), end))
        i = end


def skip_balanced(code, i, open_, close):
    depth = 0
    while i < len(code):
        if code[i] == open_:
            depth += 1
        elif code[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` -> [[a, b], [a, c, d], [a, c, e]] (renames already removed)."""

    def parse(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            parts.append(cur)
        paths = []
        for p in parts:
            if "{" in p:
                k = p.index("{")
                prefix = p[:k].rstrip(":")
                head = prefix.split("::") if prefix else []
                paths.extend(head + sub for sub in parse(p[k + 1:p.rindex("}")]))
            elif p:
                paths.append(p.split("::"))
        return paths

    return parse(re.sub(r"\s+", "", tree))


USE = re.compile(r"(\bpub\s*(?:\([^)]*\)\s*)?)?\buse\s+([^;]*);")
PATH = re.compile(r"(?<![\w:])((?:crate|super|self)(?:\s*::\s*[A-Za-z_]\w*)+)")


def parent_of(mod):
    return mod[:-1] if mod else mod


class Graph:
    """The modules, their declared children and re-exports, and the dependency edges."""

    def __init__(self, mods):
        self.mods = mods
        self.children = defaultdict(set)
        # module -> {name: (path segments, module the `pub use` is written in)}
        self.reexports = defaultdict(dict)
        codes = {}
        for key, path in mods.items():
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                code = without_test_items(strip_comments_and_strings(f.read()))
            codes[key] = code
            for m in re.finditer(r"\bmod\s+([A-Za-z_]\w*)\s*;", code):
                if key + (m.group(1),) in mods:
                    self.children[key].add(m.group(1))
        uses = {}
        for key, code in codes.items():
            uses[key] = []
            for m in USE.finditer(code):
                public = m.group(1) is not None
                for seg in expand_use_tree(re.sub(r"\s+as\s+", " as ", m.group(2))):
                    name = seg[-1]
                    if " as " in name:
                        real, name = name.split(" as ")
                        seg = seg[:-1] + [real]
                    if public and name not in ("*", "self"):
                        self.reexports[key][name] = (seg, key)
                    else:
                        uses[key].append(seg)
        self.deps = defaultdict(lambda: defaultdict(list))
        for key, code in codes.items():
            found = list(uses[key])
            rest = USE.sub(" ", code)
            for m in PATH.finditer(rest):
                found.append(re.sub(r"\s+", "", m.group(1)).split("::"))
            for child in self.children.get(key, ()):
                pattern = r"(?<![\w:])" + child + r"\s*::\s*([A-Za-z_]\w*)"
                for m in re.finditer(pattern, rest):
                    found.append([child, m.group(1)])
            for seg in found:
                target = self.resolve(seg, key, 0)
                # A module's own ancestors are its context (the directory module's shared
                # items, the crate root), not a dependency that can close a circle.
                if target is not None and key[: len(target)] != target:
                    self.deps[key][target].append("::".join(seg))

    def resolve(self, segments, here, hops):
        """The module a path written in module `here` points into (through re-exports: the
        module that defines the item), or None for a path outside the crate."""
        segs = [s for s in segments if s]
        if not segs:
            return None
        if segs[0] == "crate":
            base, segs = (), segs[1:]
        elif segs[0] == "super":
            base = here
            while segs and segs[0] == "super":
                base, segs = parent_of(base), segs[1:]
        elif segs[0] == "self":
            base, segs = here, segs[1:]
        elif segs[0] in self.children.get(here, ()):
            base = here
        else:
            return None
        while segs and base + (segs[0],) in self.mods:
            base, segs = base + (segs[0],), segs[1:]
        if segs and segs[0] in self.reexports.get(base, {}) and hops < 16:
            path, at = self.reexports[base][segs[0]]
            target = self.resolve(path, at, hops + 1)
            if target is not None:
                return target
        return base


def circles(mods, deps):
    """Strongly connected components of two or more modules (Tarjan), as sorted file lists."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in deps.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(mods[m] for m in comp))

    for v in sorted(mods):
        if v not in index:
            visit(v)
    return sorted(out, key=lambda c: (-len(c), c))


# Top-level engine modules that only training and corpus tools use; the run-time engine
# (everything else in src/) must not depend on them.
TRAINING_TIME = {"corpus", "training"}


def layer_breaches(mods, deps):
    """(run-time file, training-time file, paths named) for each dependency that crosses the
    layers the wrong way."""
    out = []
    for a in sorted(mods):
        if a[:1] and a[0] in TRAINING_TIME:
            continue
        for b, paths in sorted(deps.get(a, {}).items()):
            if b[:1] and b[0] in TRAINING_TIME:
                out.append((mods[a], mods[b], sorted(set(paths))))
    return out


def read_baseline():
    if not os.path.exists(BASELINE):
        return []
    with open(BASELINE, encoding="utf-8") as f:
        return [set(l.split()) for l in f if l.strip() and not l.startswith("#")]


def main(argv):
    mods = module_files()
    deps = Graph(mods).deps
    if argv[:1] == ["--edges"] and len(argv) == 3:
        by_file = {v: k for k, v in mods.items()}
        a, b = by_file[argv[1]], by_file[argv[2]]
        for p in sorted(set(deps[a].get(b, []))):
            print(p)
        return 0
    current = circles(mods, deps)
    print(f"import circles between engine modules (src/): {len(current)}")
    for c in current:
        print(f"  {len(c)} files: {' '.join(c)}")
    if argv[:1] == ["--write-baseline"]:
        with open(BASELINE, "w", encoding="utf-8") as f:
            f.write("# Accepted import circles (.ci/import_cycles.py --write-baseline); one per line.\n")
            for c in current:
                f.write(" ".join(c) + "\n")
        print(f"wrote {os.path.relpath(BASELINE, ROOT)}")
        return 0
    baseline = read_baseline()
    failed = False
    breaches = layer_breaches(mods, deps)
    names = ", ".join(sorted(TRAINING_TIME))
    print(f"run-time modules that import training-time code ({names}): {len(breaches)}")
    for a, b, paths in breaches:
        failed = True
        print(f"FAIL: {a} depends on {b} ({', '.join(paths[:3])}); move the code it needs down"
              " into the run-time module that owns it, or the caller up into training")
    for c in current:
        inside = [b for b in baseline if set(c) <= b]
        if inside:
            continue
        failed = True
        over = max(baseline, key=lambda b: len(b & set(c)), default=set())
        if over & set(c):
            print(f"FAIL: a circle grew; modules not in the accepted one: {' '.join(sorted(set(c) - over))}")
        else:
            print(f"FAIL: a new circle: {' '.join(c)}")
    for b in baseline:
        now = [set(c) for c in current if set(c) & b]
        if all(c <= b for c in now) and sum(len(c) for c in now) < len(b):
            print(f"note: an accepted circle of {len(b)} files is now {[len(c) for c in now] or 'gone'};"
                  " tighten the baseline with .ci/import_cycles.py --write-baseline")
    if failed:
        print("the circles are listed above; break the new dependency (move the shared items to"
              " the module that owns them), or, for an accepted one, --write-baseline")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
