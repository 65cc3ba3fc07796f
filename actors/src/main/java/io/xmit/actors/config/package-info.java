/**
 * The pipeline's configuration under {@code xmit { … }}: the key table ({@link io.xmit.actors.config.ConfigKey}),
 * which states each key's path and range once; the HOCON reader that fills an {@link io.xmit.actors.PipelineConfig}
 * from it ({@link io.xmit.actors.config.HoconConfigReader}); and the value parsers every reader of configuration
 * shares ({@link io.xmit.actors.config.ConfigValues}), so that a bad value is refused with the same one-line message
 * wherever it is read.
 */
package io.xmit.actors.config;
