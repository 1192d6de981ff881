"""An example custom health check for a made-up CRD, ``Widget`` (group ``example.weft.dev``), whose controller runs
a Deployment per Widget: the Python port of ``examples/health-widget``. It shows the SDK end to end, including what
Argo CD's single-object checks cannot do: looking at the objects a Widget owns.

The rule, in order:

1. ``spec.paused: true`` -> suspended.
2. The controller has not observed the latest spec -> progressing.
3. The ``Ready`` condition is ``False`` with reason ``Failed`` -> degraded, with the condition's message.
4. An owned Deployment has fewer available replicas than it wants -> progressing, naming it.
5. ``Ready`` is ``True`` -> healthy, with the condition's message.
6. Otherwise -> progressing, waiting for ``Ready``.
"""

from __future__ import annotations

from weft import Context, Health, Object, health_check


@health_check
def widget_health(obj: Object, cx: Context) -> Health | None:
    """Health of ``example.weft.dev/Widget``."""
    if obj.bool("spec.paused") is True:
        return Health.suspended("Widget is paused")
    if not obj.generation_observed:
        return Health.progressing(
            f"Waiting for the widget controller to observe generation {obj.generation or 0}"
        )
    ready = obj.condition("Ready")
    if ready is not None and ready.is_false and ready.reason == "Failed":
        return Health.degraded(ready.message)
    for child in cx.children(obj):
        if child.kind != "Deployment":
            continue
        replicas = child.replicas()
        if replicas.available < replicas.desired:
            return Health.progressing(
                f"Waiting for deployment {child.name}: "
                f"{replicas.available} of {replicas.desired} replicas available"
            )
    if ready is not None and ready.is_true:
        return Health.healthy(ready.message)
    return Health.progressing("Waiting for the Ready condition")
