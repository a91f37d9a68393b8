"""The code compiled functions can depend on, statement by statement, across modules.

numba compiles a function together with the functions it calls and freezes the global
values it reads. So what decides the machine code of a package is its compiled code
(each top-level statement that mentions numba: the kernels, the factories that make
them, the intrinsics) and, transitively, every top-level statement that binds a global
name one of those reads: a constant, a table and the Python code that computes it, a
kernel of another module reached through an import. :func:`reached` follows those
names, import by import, and keeps nothing else: a Python function, a constant no
compiled code reads or a whole module of charts changes none of it.

A name is followed wherever it could refer to a global (a function's own arguments and
assignments do not); where it cannot be resolved to statements (a module used as a
whole, a name a module only provides through ``__getattr__``), the whole module is kept.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Mapping, Sequence, Set

#: A global a statement reads: a name and the attributes read from it (``cards.popcount``:
#: ``("cards", ("popcount",))``).
Ref = tuple[str, tuple[str, ...]]
#: A top-level statement: its module's name, its place in the module's body and, for an
#: import, the name it binds that is read ("": every name, for any other statement).
Site = tuple[str, int, str]

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_IMPORTS = (ast.Import, ast.ImportFrom)


def statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every statement of ``body``, those nested in others' bodies included (and the
    ``except`` and ``case`` clauses that hold some); the expressions are not walked."""
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            value = getattr(node, field, None)
            if isinstance(value, list):
                todo.extend(value)


def numba_names(tree: ast.Module) -> dict[str, str]:
    """The names a module binds to numba or to what it imports from numba, each with
    what it stands for (``{"nb": "numba", "njit": "numba.njit"}``)."""
    names: dict[str, str] = {}
    for node in statements(tree.body):
        if isinstance(node, ast.Import):
            names.update(((a.asname or a.name).split(".")[0],
                          a.name if a.asname else a.name.split(".")[0])
                         for a in node.names if a.name.split(".")[0] == "numba")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numba":
            names.update((a.asname or a.name, f"{node.module}.{a.name}") for a in node.names)
    return names


#: What numba offers Python code that compiles nothing: the type of a value (the warm-up
#: compiles kernels for given types) and the threads compiled code runs on.
RUNTIME = frozenset({"typeof", "get_num_threads", "set_num_threads", "get_thread_id",
                     "threading_layer"})


def _compiles(ref: Ref, names: dict[str, str]) -> bool:
    """Whether ``ref`` is numba, other than what compiles nothing (:data:`RUNTIME`)."""
    path = [*names[ref[0]].split("."), *ref[1]] if ref[0] in names else []
    return bool(path) and path[-1] not in RUNTIME


def _children(node: ast.AST) -> list[ast.AST]:
    found: list[ast.AST] = []
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            found.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def _chain(node: ast.AST) -> Ref | None:
    """``a.b.c`` as ``("a", ("b", "c"))``; None for anything else."""
    attrs: list[str] = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    return (node.id, tuple(reversed(attrs))) if isinstance(node, ast.Name) else None


def _params(args: ast.arguments) -> set[str]:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def _own_names(body: Sequence[ast.AST]) -> set[str]:
    """The names a function's body binds in its own scope (Python makes them local
    throughout it), less those it declares ``global`` and those it imports (followed as
    globals are, to the module they come from)."""
    bound: set[str] = set()
    declared: set[str] = set()
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
            continue
        if isinstance(node, ast.Global):
            declared.update(node.names)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
        if isinstance(node, _DEFS):
            bound.add(node.name)  # its body is a scope of its own
            todo.extend([*node.decorator_list, *getattr(node, "bases", [])])
        elif not isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            todo.extend(_children(node))
    return bound - declared


def scan(statement: ast.stmt) -> tuple[frozenset[Ref], tuple[ast.stmt, ...]]:
    """The globals a top-level ``statement`` reads (every name, with the attributes read
    from it, not bound in an enclosing function, lambda or comprehension) and the imports
    it makes inside its functions."""
    refs: set[Ref] = set()
    imports: list[ast.stmt] = []
    todo: list[tuple[ast.AST, frozenset[str]]] = [(statement, frozenset())]
    while todo:
        node, local = todo.pop()
        if isinstance(node, ast.Name | ast.Attribute):
            ref = _chain(node)
            if ref is not None:
                if ref[0] not in local:
                    refs.add(ref)
                continue
        if isinstance(node, _FUNCTIONS):
            args = node.args
            todo.extend((n, local) for n in [*getattr(node, "decorator_list", []),
                                             *args.defaults, *args.kw_defaults] if n)
            body = node.body if isinstance(node.body, list) else [node.body]
            inner = local | _params(args) | _own_names(body)
            todo.extend((n, inner) for n in body)
        elif isinstance(node, _COMPREHENSIONS):
            first = node.generators[0]
            todo.append((first.iter, local))
            inner = local | {n.id for g in node.generators for n in ast.walk(g.target)
                             if isinstance(n, ast.Name)}
            todo.extend((n, inner) for n in _children(node) if n is not first)
            todo.extend((n, inner) for n in [first.target, *first.ifs])
        else:
            if isinstance(node, _IMPORTS) and node is not statement:
                imports.append(node)  # type: ignore[arg-type]
            todo.extend((n, local) for n in _children(node))
    return frozenset(refs), tuple(imports)


class Package:
    """The top-level statements of a package's modules (``trees``, by module name;
    ``packages``: the names of those that are packages) and what each reads; the
    modules of ``skip`` count as outside the package."""

    def __init__(self, trees: dict[str, ast.Module], packages: Set[str],
                 skip: Set[str] = frozenset()) -> None:
        self.trees = {name: tree for name, tree in trees.items() if name not in skip}
        self.packages = packages
        self.skip = skip
        self.binders: dict[str, dict[str, list[int]]] = {}
        for name, tree in self.trees.items():
            table: dict[str, list[int]] = {}
            for i, node in enumerate(tree.body):
                for bound in _binds(node):
                    table.setdefault(bound, []).append(i)
            self.binders[name] = table

    def node(self, site: Site) -> ast.stmt:
        return self.trees[site[0]].body[site[1]]

    @functools.cache  # noqa: B019  (one package per key, dropped with it)
    def scanned(self, site: Site) -> tuple[frozenset[Ref], tuple[ast.stmt, ...]]:
        return scan(self.node(site))

    def _absolute(self, module: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = module.split(".")
        base = parts if module in self.packages else parts[:-1]
        base = base[:len(base) - node.level + 1]
        return ".".join([*base, *([node.module] if node.module else [])])

    def _imported(self, module: str, node: ast.stmt, name: str) -> Ref | None:
        """Where ``name``, bound by the import ``node`` in ``module``, leads: a module of
        the package and the attributes to read from it (None: outside the package)."""
        assert isinstance(node, _IMPORTS)
        for a in node.names:
            if isinstance(node, ast.Import):
                if a.asname == name:
                    return (a.name, ()) if a.name in self.trees else None
                if a.asname is None and a.name.split(".")[0] == name:
                    return (name, ()) if name in self.trees else None
            elif (a.asname or a.name) == name:
                source = self._absolute(module, node)
                if f"{source}.{a.name}" in self.skip:
                    return None
                if f"{source}.{a.name}" in self.trees:
                    return f"{source}.{a.name}", ()
                return (source, (a.name,)) if source in self.trees else None
        return None

    def resolve(self, module: str, ref: Ref, local: tuple[ast.stmt, ...] = ()) -> set[Site]:
        """The top-level statements that bind the global ``ref`` read in ``module``
        (``local``: the imports of the functions it is read in), across imports."""
        name, attrs = ref
        sites: set[Site] = set()
        for node in local:
            target = self._imported(module, node, name)
            if target is not None:
                sites |= self._follow(target[0], target[1] + attrs)
        for i in self.binders[module].get(name, ()):
            node = self.trees[module].body[i]
            if isinstance(node, _IMPORTS):
                sites.add((module, i, name))
                target = self._imported(module, node, name)
                if target is not None:
                    sites |= self._follow(target[0], target[1] + attrs)
            else:
                sites.add((module, i, ""))
        return sites

    def _follow(self, module: str, attrs: tuple[str, ...]) -> set[Site]:
        while attrs and f"{module}.{attrs[0]}" in self.trees:
            module, attrs = f"{module}.{attrs[0]}", attrs[1:]
        if attrs and attrs[0] in self.binders[module]:
            return self.resolve(module, (attrs[0], attrs[1:]))
        # The module itself, or a name it makes up at run time.
        return {(module, i, "") for i in range(len(self.trees[module].body))}

    def reads(self, site: Site) -> set[Site]:
        """The statements whose bindings the statement at ``site`` reads (an import read
        for one name leads where :meth:`resolve` followed it; a whole import, everywhere
        it leads)."""
        module, _, alias = site
        node = self.node(site)
        if isinstance(node, _IMPORTS):
            if alias:
                return set()
            names: set[Ref] = {((a.asname or a.name).split(".")[0], ()) for a in node.names}
            return {s for ref in names for s in self.resolve(module, ref)} - {site}
        refs, local = self.scanned(site)
        return {s for ref in refs for s in self.resolve(module, ref, local)} - {site}

    def calls(self, site: Site) -> set[Site]:
        """The statements binding what the statement at ``site`` calls."""
        refs = {_chain(n.func) for n in ast.walk(self.node(site)) if isinstance(n, ast.Call)}
        return {s for ref in refs if ref is not None for s in self.resolve(site[0], ref)}


def _binds(node: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds or may change: a definition's
    name, an assignment's targets (``T[0] = 1`` changes ``T``), every name a function
    declares ``global``, the object whose method a call calls; any other statement (a
    loop, an ``if``, a call of a function) every name it mentions."""
    if isinstance(node, _DEFS):
        declared = {name for sub in statements(node.body) if isinstance(sub, ast.Global)
                    for name in sub.names}
        return {node.name} | declared
    if isinstance(node, _IMPORTS):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {ref[0] for target in targets for sub in ast.walk(target)
                if isinstance(sub, ast.Name | ast.Attribute) and (ref := _chain(sub))}
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
            (ref := _chain(node.value.func)) and ref[1]:
        # ``T.update(...)``: T, and what it is handed (it may change that too)
        return {ref[0]} | {a.id for a in node.value.args if isinstance(a, ast.Name)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def reached(trees: dict[str, ast.Module], packages: Set[str] = frozenset(),
            skip: Set[str] = frozenset(),
            also: Mapping[str, tuple[str, ...]] | None = None) -> dict[str, list[ast.stmt]]:
    """The statements of each module (``trees``, by module name; ``packages``: those
    that are packages) that compiled code can depend on, in their order, for the modules
    that have any; of an import, only the names read. Compiled code is every top-level
    statement that mentions numba and every statement
    at module level, other than a definition, that calls one: ``K = make_kernel(3)``
    makes a kernel of a 3; ``also`` names more statements to start from (by module, the
    names they bind). The modules of ``skip`` are neither compiled code nor followed."""
    package = Package(trees, packages, skip)
    trees = package.trees
    roots = {s for module, names in (also or {}).items() for name in names
             for s in package.resolve(module, (name, ()))}
    calling: list[Site] = []
    for name, tree in trees.items():
        names = numba_names(tree)
        for i, node in enumerate(tree.body):
            site = (name, i, "")
            if isinstance(node, _IMPORTS):
                continue
            if names and any(_compiles(ref, names) for ref in package.scanned(site)[0]):
                roots.add(site)
            elif not isinstance(node, _DEFS) and any(isinstance(n, ast.Call)
                                                     for n in ast.walk(node)):
                calling.append(site)
    roots.update(site for site in calling if package.calls(site) & roots)
    kept: set[Site] = set()
    todo = list(roots)
    while todo:
        site = todo.pop()
        if site not in kept:
            kept.add(site)
            todo.extend(package.reads(site))
    found: dict[str, list[ast.stmt]] = {}
    for name, tree in trees.items():
        for i, node in enumerate(tree.body):
            if (name, i, "") in kept:
                found.setdefault(name, []).append(node)
            elif isinstance(node, _IMPORTS):
                read = [a for a in node.names
                        if (name, i, (a.asname or a.name).split(".")[0]) in kept]
                if read:
                    found.setdefault(name, []).append(_only(node, read))
    return found


def _only(node: ast.Import | ast.ImportFrom, names: list[ast.alias]) -> ast.stmt:
    """The import ``node`` of ``names`` alone."""
    if isinstance(node, ast.Import):
        return ast.Import(names=names)
    return ast.ImportFrom(module=node.module, names=names, level=node.level)
