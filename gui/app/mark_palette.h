#pragma once
/// The colour of each kind of navigation mark (engine/report/event_marks.h), in one place: the
/// stepper's slider (marked_slider.h), the memory chart (memory_chart.h) and the navigator use the
/// same colour for the same meaning. The peaks take the chart's own reserved and allocated colours,
/// so a peak mark reads as "the top of that line".
#include "engine/report/event_marks.h"

#include <QColor>
#include <algorithm>
#include <map>
#include <vector>

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

/// A widget's marks by kind, each kind's events sorted: what the slider and the chart keep and paint.
class MarkSet {
public:
    using MarkKind = engine::report::MarkKind;
    /// `events` of `kind` (sorted here); none removes the kind.
    void set(MarkKind kind, std::vector<int> events)
    {
        if (events.empty()) {
            m_byKind.erase(kind);
            return;
        }
        std::sort(events.begin(), events.end());
        m_byKind[kind] = std::move(events);
    }
    /// Every kind a run has (EventMarks::of is sorted already).
    void setAll(const engine::report::EventMarks& marks)
    {
        m_byKind.clear();
        for (MarkKind k : engine::report::allMarkKinds())
            if (marks.count(k))
                m_byKind[k] = marks.of(k);
    }
    void clear() { m_byKind.clear(); }
    bool empty() const { return m_byKind.empty(); }
    /// The events of `kind`; empty when it has none.
    const std::vector<int>& of(MarkKind kind) const
    {
        static const std::vector<int> kNone;
        const auto it = m_byKind.find(kind);
        return it == m_byKind.end() ? kNone : it->second;
    }
    const std::map<MarkKind, std::vector<int>>& byKind() const { return m_byKind; }
    /// The kinds present, in paint order (markPaintRank, bottom first).
    std::vector<MarkKind> paintOrder() const
    {
        std::vector<MarkKind> kinds;
        for (const auto& kv : m_byKind)
            kinds.push_back(kv.first);
        std::stable_sort(
            kinds.begin(), kinds.end(), [](MarkKind a, MarkKind b) { return markPaintRank(a) < markPaintRank(b); });
        return kinds;
    }

private:
    std::map<MarkKind, std::vector<int>> m_byKind;
};

} // namespace gui
