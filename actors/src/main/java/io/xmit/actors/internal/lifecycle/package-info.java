/**
 * Building a pipeline from its configuration, its guardian actor, and its graceful stop.
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.lifecycle;
