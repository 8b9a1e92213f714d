#pragma once
/// The `snapshot` command's story of one device (engine/snapshot/snapshot_story.h) as text and
/// JSON: each pool's name, kind, evidence and owners at the pool's peak; the device's peak (or a
/// chosen trace entry) explained by category, owner and allocation site.
#include "engine/snapshot/snapshot_story.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gui::cli {

struct DeviceStory {
    engine::snapshot::SnapshotStory story;
    std::vector<engine::snapshot::Breakdown> poolPeaks; ///< per story.pools, at each pool's peak, that pool only
    engine::snapshot::Breakdown explained; ///< the device at its peak or at the entry asked for
    bool atPeak = true;
};

/// `at`: the 0-based trace entry to explain; none: the device's peak.
engine::Result<DeviceStory> explainStory(
    const engine::snapshot::Snapshot& snapshot, engine::snapshot::SnapshotStory story, std::optional<size_t> at);
std::string storyText(const DeviceStory& d);
nlohmann::json storyJson(const DeviceStory& d);

} // namespace gui::cli
