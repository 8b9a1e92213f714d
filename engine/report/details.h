#pragma once
/// What the Inspector shows for one selected thing (a graph node, an event of a run, an allocator
/// block, a cache entry) as a small tree of key/value rows, and the same tree as indented text for
/// "Copy" and for reports. Pure data built from the engine's own structures, so a headless command
/// can print exactly what the window shows.
///
/// Numbering follows the rest of the program: events are 1-based ("event 12", as the Runtime tab
/// counts them), calls are the Simulation's 0-based call index, as TorchAir's log lines, the hazards
/// and the text report print them ("call 3"); a placeholder's input index is 0-based, as TorchAir's
/// `parse_input` numbers the FX graph's arguments.
#include "engine/graph/graph.h"
#include "engine/runtime/simulator.h"

#include <string>
#include <vector>

namespace engine::report {

/// One row: a property and its value, with optional child rows (a tensor's shape, a log line).
/// `value` is one line or a few; an empty value is allowed for rows that only group children.
struct Detail {
    std::string key;
    std::string value;
    std::vector<Detail> children;
};

struct Details {
    std::string kind; ///< "node", "event", "block", "cache_entry"; empty when nothing is selected
    std::string title; ///< one line naming the thing ("l0_rms_norm", "event 12: capture graph_2")
    std::vector<Detail> rows;
};

/// Node `node` of `graph` (finalized): name, op, target, args and kwargs (node references by name),
/// every output tensor (shape, stride, dtype, device, offset, bytes when the sizes are constant),
/// for placeholders their input kind, role and index among the placeholders, the symbol of a SymInt,
/// the workspace, provenance, storage binding, users, and the passes in `rewrittenBy` (names of the
/// passes that rewrote the node; the caller knows them from the pass reports). An index outside the
/// graph gives a Details whose title says so and whose rows are empty.
Details nodeDetails(const engine::Graph& graph, int node, const std::vector<std::string>& rewrittenBy = {});

/// Event `event` (0-based index into sim.events): its number, call, kind, graph, key, summary, every
/// log line TorchAir prints there (key: level; value: text, "<category>: <text>" for a warnings.warn
/// text), input actions, the hazards it shows (a "hazard" row each: its own, for a fallback or an
/// out-of-memory event, and those found in this step of its call, report::hazardEvent), device memory
/// after it, and the record of the call it belongs to (action, recapture cause, inputs and bytes
/// copied, outputs rebuilt, and every hazard raised during the call). Each hazard row ends in an
/// "explanation" row (report::explanationRow: what, why, avoid, what TorchAir says, source). An
/// index outside the run gives a Details whose title says so and whose rows are empty.
Details eventDetails(const engine::runtime::Simulation& sim, int event);

/// Block `block` of segment `segment` of `pools[pool]`, where `pools` is the memory after some event
/// as the Memory view shows it (Event::memory or storage::memoryAt). Owners are looked up in
/// sim.owners, pool users in sim.pools.
///
/// The block's state is one of:
/// - "free": not allocated;
/// - "live": allocated, and its owner id names an entry of sim.owners;
/// - "stale": allocated with no owner (memory::kNoOwner, or an id sim.owners does not have): a block
///   re-created by a pool rollback (setCheckpointPoolState) that no tensor has claimed since; the
///   memory is taken but nothing the caller holds points at it.
/// An owned block whose key has since been recaptured is not called stale: the snapshot does not say
/// at which event it was taken, and the Simulation keeps only the keys captured at the end of the run,
/// so that cannot be decided here. (In practice a recapture rolls the pool back, which frees such
/// blocks or re-creates them without an owner, so they show as "free" or "stale" anyway.)
/// Indices outside `pools` give a Details whose title says so and whose rows are empty.
Details blockDetails(const engine::runtime::Simulation& sim, const std::vector<engine::runtime::PoolSnapshot>& pools,
    int pool, int segment, int block);

/// Indented plain text: the title, then one "key: value" line per row, children indented by two
/// spaces per level; a value of several lines continues under its key, indented.
std::string detailsText(const Details& details);

/// Bytes as the Inspector prints them: "512 B", "16 777 216 B (16.0 MiB)". Exact, since users
/// compare these numbers with TorchAir's `debug_mem_state` output.
std::string bytesText(uint64_t bytes);
/// Bytes rounded for people: "512 B", "16.0 MiB" (one decimal, binary units up to TiB); the form
/// the Memory view's labels use.
std::string humanBytes(uint64_t bytes);

/// Appends the row `key: value` unless `value` is empty (the optional fields of hazards, owners,
/// cache checks).
void addNonEmpty(std::vector<Detail>& rows, std::string key, std::string value);

} // namespace engine::report
