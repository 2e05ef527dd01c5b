"""YAML documents read with a bound on what aliases expand to, for every config file.

`yaml.safe_load` shares an aliased node rather than copying it, so a 734-byte file
of nested aliases ("billion laughs") loads quickly, then explodes in whoever walks
or copies it as a tree (config overrides, validation). Here the tree size the
document stands for is counted on the composed node graph (each node once, so linear
in the file) and refused past `max_nodes`, before anything is constructed; nesting
deeper than the parser's recursion allows is refused too.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["DEFAULT_MAX_NODES", "YamlTooLarge", "load_yaml"]

DEFAULT_MAX_NODES = 1_000_000
"""Most values (scalars, lists, mappings, counted as the tree aliases expand to) a config
file may stand for; real configs hold a few hundred."""


class YamlTooLarge(ValueError):
    """The document expands (through aliases) or nests past the limits; says which."""


def load_yaml(text: str, *, max_nodes: int = DEFAULT_MAX_NODES) -> Any:
    """Like `yaml.safe_load` (raises yaml.YAMLError), refusing with YamlTooLarge a document
    whose aliases expand past `max_nodes` values or that nests too deeply to parse."""
    loader = yaml.SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise YamlTooLarge("the document nests too deeply to read; flatten it") from None
        if node is None:
            return None
        size = expanded_size(node)
        if size > max_nodes:
            raise YamlTooLarge(
                f"the document's aliases (*name) expand to {size:,} values, past the limit "
                f"of {max_nodes:,}; write the values out or use fewer nested aliases"
            )
        try:
            return loader.construct_document(node)
        except RecursionError:
            raise YamlTooLarge("the document nests too deeply to read; flatten it") from None
    finally:
        loader.dispose()


def expanded_size(root: yaml.Node) -> int:
    """Values in the tree `root` stands for with every alias copied out: each node of the
    graph visited once (iteratively), its size the sum of its children's. Raises
    YamlTooLarge for an alias that contains itself."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in sizes and not children_done:
            continue
        children = _children(node)
        if children_done:
            counts = [sizes[id(child)] for child in children]
            if -1 in counts:  # a child still being counted is an ancestor
                raise YamlTooLarge(
                    "an alias (*name) refers to a value that contains it, so the document "
                    "never ends; write the values out"
                )
            sizes[key] = 1 + sum(counts)
            continue
        sizes[key] = -1  # being counted: seen again below itself, it is a cycle
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []
