/// The part of libav's C API that Swift cannot import directly: function-like macros
/// (`AVERROR`, `AVERROR_EOF`), constants defined through casts (`AV_NOPTS_VALUE`) and
/// compound literals (`AV_TIME_BASE_Q`), wrapped as static inline functions.
#ifndef MEDIAD_CFFMPEG_SHIM_H
#define MEDIAD_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/imgutils.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

static inline int mediad_averror(int posix_error) { return AVERROR(posix_error); }
static inline int mediad_averror_eof(void) { return AVERROR_EOF; }
static inline int mediad_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int mediad_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int mediad_averror_patchwelcome(void) { return AVERROR_PATCHWELCOME; }
static inline int mediad_averror_exit(void) { return AVERROR_EXIT; }
static inline int64_t mediad_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational mediad_time_base_q(void) { return AV_TIME_BASE_Q; }

/// Implemented in Swift (MediaCore, `LibavLog`): receives each formatted libav log fragment.
void mediad_log_line(int level, const char *line);

/// libav's log callback: formats the message (va_list cannot cross into Swift) and forwards it.
static inline void mediad_log_bridge(void *context, int level, const char *format, va_list arguments) {
    if (level > av_log_get_level()) return;
    char line[2048];
    int print_prefix = 1;
    av_log_format_line2(context, level, format, arguments, line, (int)sizeof line, &print_prefix);
    mediad_log_line(level, line);
}

/// Routes libav's log output through `mediad_log_bridge`.
static inline void mediad_log_install(void) { av_log_set_callback(mediad_log_bridge); }

#endif
