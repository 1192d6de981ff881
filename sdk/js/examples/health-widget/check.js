// An example custom health check for a made-up CRD, `Widget` (group `example.weft.dev`), whose controller runs a
// Deployment per Widget: the JavaScript port of examples/health-widget. It shows the SDK end to end, including what
// Argo CD's single-object checks cannot do: looking at the objects a Widget owns.
//
// The rule, in order:
// 1. `spec.paused: true` -> suspended.
// 2. The controller has not observed the latest spec -> progressing.
// 3. The `Ready` condition is `False` with reason `Failed` -> degraded, with the condition's message.
// 4. An owned Deployment has fewer available replicas than it wants -> progressing, naming it.
// 5. `Ready` is `True` -> healthy, with the condition's message.
// 6. Otherwise -> progressing, waiting for `Ready`.

import { Health } from 'weft-sdk';

/** Health of `example.weft.dev/Widget`. */
export function assess(obj, cx) {
  if (obj.bool('spec.paused') === true) {
    return Health.suspended('Widget is paused');
  }
  if (!obj.generationObserved()) {
    return Health.progressing(
      `Waiting for the widget controller to observe generation ${obj.generation ?? 0}`,
    );
  }
  const ready = obj.condition('Ready');
  if (ready && ready.isFalse() && ready.reason === 'Failed') {
    return Health.degraded(ready.message);
  }
  for (const child of cx.children(obj).filter((c) => c.kind === 'Deployment')) {
    const replicas = child.replicas();
    if (replicas.available < replicas.desired) {
      return Health.progressing(
        `Waiting for deployment ${child.name}: ${replicas.available} of ${replicas.desired} replicas available`,
      );
    }
  }
  if (ready && ready.isTrue()) {
    return Health.healthy(ready.message);
  }
  return Health.progressing('Waiting for the Ready condition');
}
