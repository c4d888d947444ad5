"""Says whether a process proxy class named in a kernelspec exists in the installed Enterprise
Gateway and is a remote one, printing "<EG version> <base class> <True|False>".

EG's k8s module reads the cluster's in-pod configuration when imported, which a machine without
Kubernetes lacks: the module's source is read for the class instead, and the base class it
derives from (imported from a sibling module) is imported and checked."""
import ast
import importlib
import importlib.util
import sys
from importlib.metadata import version

from enterprise_gateway.services.processproxies.processproxy import RemoteProcessProxy

module, name = sys.argv[1].rsplit(".", 1)
tree = ast.parse(open(importlib.util.find_spec(module).origin).read())
[found] = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name]
[base] = [b.id for b in found.bases if isinstance(b, ast.Name)]
[origin] = [n for n in tree.body if isinstance(n, ast.ImportFrom) and base in [a.name for a in n.names]]
package = module.rsplit(".", 1)[0]
parent = getattr(importlib.import_module("." * origin.level + (origin.module or ""), package), base)
print(version("jupyter_enterprise_gateway"), base, issubclass(parent, RemoteProcessProxy))
