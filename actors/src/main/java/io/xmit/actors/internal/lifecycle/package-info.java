/**
 * What {@link io.xmit.actors.Pipeline} delegates to: building a pipeline from its configuration
 * ({@code PipelineAssembly}), opening and closing its sockets ({@code SocketLifecycle}), its books ({@code Books}),
 * its graceful stop ({@code GracefulStop}), fault injection, the guardian its actors run under, and the control
 * calls that ask them ({@code ControlCalls}) under the one lock a pipeline has ({@code OpenState}).
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal.lifecycle;
