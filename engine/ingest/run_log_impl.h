#pragma once
/// Internal to engine/ingest's log reader (run_log.h): the builders that turn one process's entries
/// into its run. run_log.cpp owns the file, the lines, the processes and continuation lines;
/// torchair_log.cpp interprets TorchAir's messages; pytorch_log.cpp PyTorch's TORCH_LOGS messages.
#include "engine/ingest/run_log.h"

#include <memory>

namespace engine::ingest::detail {

/// Builds one process's run from its entries (each whole: a message continued over several lines
/// arrives joined by '\n', `lastLine` its last line).
class RunBuilder {
public:
    virtual ~RunBuilder() = default;
    virtual void add(const LogEntry& entry, int lastLine) = 0;
    /// Ends the run: the last call is closed, graphs, pools and hazards are summed up.
    virtual runtime::Simulation finish() = 0;
};

/// TorchAir's / npugraph_ex's logger (torchair_log.cpp). `path` names the log in the run's origin.
std::unique_ptr<RunBuilder> makeTorchairBuilder(const std::string& path);

/// PyTorch's TORCH_LOGS lines of a CUDA Graph Trees run (pytorch_log.cpp).
std::unique_ptr<RunBuilder> makePyTorchBuilder(const std::string& path);

/// Whether a message is one of TorchAir's call-level texts (torchair_log.cpp), for tests and the
/// reader's evidence.
bool isTorchairRunText(std::string_view message);

} // namespace engine::ingest::detail
