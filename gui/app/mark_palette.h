#pragma once
/// The colour of each kind of navigation mark (engine/report/event_marks.h), in one place: the
/// stepper's slider (marked_slider.h), the memory chart (memory_chart.h) and the navigator use the
/// same colour for the same meaning. The peaks take the chart's own reserved and allocated colours,
/// so a peak mark reads as "the top of that line".
#include "engine/report/event_marks.h"

#include <QColor>

namespace gui {

inline QColor markColour(engine::report::MarkKind k)
{
    using engine::report::MarkKind;
    switch (k) {
    case MarkKind::Capture:
        return QColor(0x21, 0x66, 0xac); // blue
    case MarkKind::Recapture:
        return QColor(0xe6, 0x61, 0x01); // orange
    case MarkKind::Replay:
        return QColor(0x4d, 0xaf, 0x4a); // green
    case MarkKind::InputUpdate:
        return QColor(0x35, 0x97, 0x8f); // teal
    case MarkKind::Compile:
        return QColor(0x98, 0x4e, 0xa3); // purple
    case MarkKind::Hazard:
        return QColor(0xd7, 0x19, 0x1c); // red
    case MarkKind::Fallback:
        return QColor(0x8c, 0x51, 0x0a); // brown
    case MarkKind::OutOfMemory:
        return QColor(0x20, 0x20, 0x20); // black
    case MarkKind::Eager:
        return QColor(0x99, 0x99, 0x99); // grey
    case MarkKind::CallStart:
        return QColor(0xc4, 0xc4, 0xc4); // light grey
    case MarkKind::PeakReserved:
        return QColor(0x4e, 0x79, 0xa7); // the chart's reserved line
    case MarkKind::PeakAllocated:
        return QColor(0xf2, 0x8e, 0x2b); // the chart's allocated line
    }
    return QColor(Qt::gray);
}

/// Peaks are single events drawn as small triangles; every other kind as thin ticks.
inline bool markIsPeak(engine::report::MarkKind k)
{
    return k == engine::report::MarkKind::PeakReserved || k == engine::report::MarkKind::PeakAllocated;
}

/// The order marks are painted in, bottom first: frequent, quiet kinds under rare, loud ones, so a
/// hazard tick is never hidden under a replay's. Ranks 3 and up (recaptures, hazards, fallback, OOM)
/// are drawn two pixels wide.
inline int markPaintRank(engine::report::MarkKind k)
{
    using engine::report::MarkKind;
    switch (k) {
    case MarkKind::CallStart:
        return 0;
    case MarkKind::Replay:
    case MarkKind::InputUpdate:
    case MarkKind::Eager:
        return 1;
    case MarkKind::Compile:
    case MarkKind::Capture:
        return 2;
    case MarkKind::Recapture:
        return 3;
    case MarkKind::Fallback:
    case MarkKind::Hazard:
    case MarkKind::OutOfMemory:
        return 4;
    case MarkKind::PeakReserved:
    case MarkKind::PeakAllocated:
        return 5;
    }
    return 0;
}

} // namespace gui
