/**
 * The pipeline behind the API: one package per stage of the packet path, mirroring {@code io.xmit.pipeline}, plus
 * the stage machinery ({@code stage}) and the assembly and stop of a pipeline ({@code lifecycle}).
 * <p>
 * Implementation, public only for use across xmit's own packages: no compatibility promise.
 */
package io.xmit.actors.internal;
