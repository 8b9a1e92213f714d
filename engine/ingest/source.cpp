// What is this path? (engine/ingest/source.h)
#include "engine/ingest/source.h"

#include "engine/core/file_io.h"
#include "engine/core/md5.h"
#include "engine/ingest/run_log.h"
#include "engine/readers/debug_dir.h"
#include "engine/readers/fx_runnable.h"
#include "engine/readers/inductor_code.h"
#include "engine/readers/torch_trace.h"
#include "engine/readers/torchair_module.h"
#include "engine/snapshot/snapshot_run.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace engine::ingest {

namespace fs = std::filesystem;

const char* sourceKindName(SourceKind kind)
{
    static const char* names[] = { "fx_graph", "scenario", "torchair_module", "debug_dir", "compiled_module",
        "torchair_cache", "memory_snapshot", "inductor_output_code", "torch_trace", "folder", "run_log" };
    return names[int(kind)];
}

std::string readHead(const std::string& path, size_t bytes)
{
    auto in = InputFile::open(path); // never blocks on a FIFO (engine/core/file_io.h)
    return in ? in->head(bytes) : std::string();
}

Result<std::vector<fs::path>> walkFiles(const fs::path& root)
{
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    if (ec)
        return Error { ErrorCode::Io, "cannot list the folder: " + ec.message(), root.string() };
    size_t entries = 0;
    for (; it != end; it.increment(ec)) {
        if (ec)
            return Error { ErrorCode::Io, "cannot list the folder: " + ec.message(), root.string() };
        if (++entries > kMaxEntries)
            return Error { ErrorCode::InvalidArgument,
                "more than " + std::to_string(kMaxEntries) + " entries below this folder: not read", root.string() };
        if (it.depth() >= kMaxDepth)
            it.disable_recursion_pending();
        const fs::file_status st = it->symlink_status(ec);
        if (ec || fs::is_symlink(st))
            continue;
        if (fs::is_regular_file(st))
            files.push_back(it->path().lexically_relative(root));
    }
    std::sort(files.begin(), files.end());
    return files;
}

namespace {

bool startsWith(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

/// Does a relative path lie in a TORCH_COMPILE_DEBUG tree? Its folders name it: run_<time>-pid_<n>,
/// torch_compile_debug, TorchAir's torchair/ and npugraph_ex/, PyTorch's torchinductor/ and
/// torchdynamo/, or a model__<n> folder of either (torch/_dynamo/utils.py get_debug_dir,
/// torch/_inductor/debug.py DebugContext).
bool inDebugTree(const fs::path& rel)
{
    for (auto it = rel.begin(); it != rel.end(); ++it) {
        if (std::next(it) == rel.end())
            break; // the file name itself
        const std::string part = it->string();
        if (part == "torch_compile_debug" || part == "torchinductor" || part == "torchdynamo" || part == "torchair"
            || part == "npugraph_ex" || startsWith(part, "model__") || (startsWith(part, "run_") && part.find("-pid_") != std::string::npos))
            return true;
    }
    return false;
}

/// The kind of one file inside a folder walk; nullopt-like Unknown via `ok == false` with a reason.
struct FileClass {
    bool known = false;
    Detected detected;
    std::string whyNot;
};

Result<Detected> detectFileIn(const std::string& path, bool inFolder);

FileClass classifyInFolder(const fs::path& root, const fs::path& rel)
{
    const std::string name = rel.filename().string();
    FileClass c;
    if (name == "compiled_module") {
        c.known = true;
        c.detected = { SourceKind::CacheDir, "a compiled_module file (TorchAir's compile cache)" };
        return c;
    }
    if (readers::isStageFileName(name) || name == "dynamo_out_graph.txt" || inDebugTree(rel)) {
        c.known = true;
        c.detected = { SourceKind::DebugDir, "TORCH_COMPILE_DEBUG's layout (" + rel.parent_path().generic_string() + ")" };
        return c;
    }
    auto d = detectFileIn((root / rel).string(), true);
    if (!d) {
        c.whyNot = d.error().message;
        return c;
    }
    c.known = true;
    c.detected = *d;
    return c;
}

/// A folder is of one kind when every input below it is of that kind (a compile cache, a debug
/// tree, a set of trace logs); otherwise it is a Folder whose children are examined one by one.
Result<FolderContents> examineFolderAt(const fs::path& path, int depth)
{
    auto files = walkFiles(path);
    if (!files)
        return files.error();
    FolderContents out;
    std::set<SourceKind> kinds;
    std::map<SourceKind, std::string> evidence;
    std::vector<FileClass> classes;
    std::set<fs::path> debugDirs; // folders that hold stage dumps or a debug tree's files
    for (const fs::path& rel : *files) {
        classes.push_back(classifyInFolder(path, rel));
        if (classes.back().known && classes.back().detected.kind == SourceKind::DebugDir)
            debugDirs.insert(rel.parent_path());
    }
    for (size_t i = 0; i < files->size(); ++i) {
        FileClass& c = classes[i];
        const fs::path& rel = (*files)[i];
        if (!c.known) {
            out.skipped.push_back((path / rel).string() + ": " + c.whyNot);
            continue;
        }
        // A generated module or graph beside stage dumps (a model's forward/output_code.py) is part
        // of that debug folder.
        if (debugDirs.count(rel.parent_path()) && c.detected.kind != SourceKind::CacheFile)
            c.detected = { SourceKind::DebugDir, "TORCH_COMPILE_DEBUG's layout (beside the stage dumps in "
                    + rel.parent_path().generic_string() + ")" };
        SourceKind k = c.detected.kind == SourceKind::CacheFile ? SourceKind::CacheDir : c.detected.kind;
        kinds.insert(k);
        evidence.emplace(k, c.detected.evidence);
    }
    if (kinds.empty())
        return Error { ErrorCode::InvalidArgument,
            "nothing below this folder is an input aclgraph-inspector reads (FX graphs, scenarios, TorchAir or "
            "Inductor generated code, TORCH_COMPILE_DEBUG folders, TORCH_TRACE logs, compile caches, memory "
            "snapshots)",
            path.string() };
    if (kinds.size() == 1) {
        const SourceKind k = *kinds.begin();
        if (k == SourceKind::CacheDir || k == SourceKind::DebugDir || k == SourceKind::TorchTrace) {
            out.detected = { k, "every input below it is one: " + evidence[k] };
            return out;
        }
    }
    // Several kinds, or loose files: each child is an input of its own.
    out.detected = { SourceKind::Folder, "a folder holding " + std::to_string(kinds.size()) + " kind(s) of input" };
    out.skipped.clear();
    std::vector<fs::path> children;
    std::error_code ec;
    for (fs::directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec))
        children.push_back(it->path());
    std::sort(children.begin(), children.end());
    for (const fs::path& child : children) {
        const fs::file_status st = fs::symlink_status(child, ec);
        if (ec || fs::is_symlink(st)) {
            out.skipped.push_back(child.string() + ": a symbolic link (not followed)");
            continue;
        }
        if (fs::is_directory(st)) {
            if (depth + 1 >= kMaxDepth) {
                out.skipped.push_back(child.string() + ": deeper than " + std::to_string(kMaxDepth) + " levels");
                continue;
            }
            auto sub = examineFolderAt(child, depth + 1);
            if (!sub) {
                out.skipped.push_back(sub.error().toString());
                continue;
            }
            if (sub->detected.kind == SourceKind::Folder) {
                for (auto& m : sub->members)
                    out.members.push_back(std::move(m));
                for (auto& s : sub->skipped)
                    out.skipped.push_back(std::move(s));
            } else {
                out.members.push_back({ child.string(), sub->detected });
            }
        } else if (fs::is_regular_file(st)) {
            auto d = detectFileIn(child.string(), true);
            if (d)
                out.members.push_back({ child.string(), *d });
            else
                out.skipped.push_back(child.string() + ": " + d.error().message);
        } else {
            out.skipped.push_back(
                child.string() + ": " + notReadError(child.string(), pathKindOf(child.string())).message);
        }
    }
    return out;
}

bool isBlank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

} // namespace

namespace {

Result<Detected> detectFileIn(const std::string& path, bool inFolder)
{
    auto in = InputFile::open(path); // a FIFO, socket or device is refused by name (engine/core/file_io.h)
    if (!in) {
        const PathKind kind = pathKindOf(path);
        if (kind == PathKind::Missing)
            return Error { ErrorCode::NotFound, "no such file or folder", path };
        if (kind != PathKind::Regular)
            return Error { ErrorCode::InvalidArgument, notReadError(path, kind).message, path };
        return in.error();
    }
    const std::string head = in->head(kSniffBytes);
    if (head.empty())
        return Error { ErrorCode::InvalidArgument, "the file is empty", path };
    const std::string name = fs::path(path).filename().string();
    if (static_cast<unsigned char>(head[0]) == 0x80) {
        if (snapshot::looksLikeSnapshot(head))
            return Detected { SourceKind::MemorySnapshot, "a pickle whose top dict has 'segments' (a memory snapshot)" };
        return Detected { SourceKind::CacheFile, "a pickle that is no memory snapshot (read as TorchAir's compiled_module)" };
    }
    const size_t nul = head.find('\0');
    if (nul != std::string::npos)
        return Error { ErrorCode::InvalidArgument,
            "binary data (a NUL byte at offset " + std::to_string(nul)
                + ") that is neither a pickle (compiled_module, memory snapshot) nor text aclgraph-inspector reads",
            path };
    if (readers::trace::looksLikeTorchTrace(head))
        return Detected { SourceKind::TorchTrace, "a glog line followed by a structured-trace JSON envelope (TORCH_TRACE)" };
    const size_t dot = name.rfind('.');
    const std::string ext = dot == std::string::npos ? std::string() : name.substr(dot);
    if (std::string why; ext != ".py" && looksLikeRunLog(head, &why))
        return Detected { SourceKind::RunLog, "a run log: " + why };
    for (char c : head)
        if (!isBlank(c)) {
            if (c == '{') {
                // A scenario names its format; other JSON (a .jsonl log, a tool's output) is no input.
                if (ext != ".jsonl" && head.find("\"aclgraph-inspector-scenario\"") != std::string::npos)
                    return Detected { SourceKind::Scenario, "JSON whose format is aclgraph-inspector-scenario" };
                // A file given on its own is read as the scenario it must be (the reader says what is
                // wrong with it); inside a folder, other JSON is just no input.
                if (!inFolder && ext != ".jsonl")
                    return Detected { SourceKind::Scenario, "JSON text (its first character is '{'): read as a scenario" };
                return Error { ErrorCode::InvalidArgument,
                    "JSON that is no scenario (no \"format\": \"aclgraph-inspector-scenario\" in its first 64 KiB)", path };
            }
            break;
        }
    if (readers::looksLikeTorchairModule(head))
        return Detected { SourceKind::TorchairModule, "TorchAir's generated module (def forward(*args...) with AclGraph / compile_configs)" };
    if (readers::inductor::looksLikeInductorOutputCode(head))
        return Detected { SourceKind::InductorCode, "Inductor's generated module ('# AOT ID' and torch._inductor imports)" };
    if (ext == ".md" || ext == ".log" || ext == ".sh" || ext == ".csv" || ext == ".jsonl")
        return Error { ErrorCode::InvalidArgument, "not a file aclgraph-inspector reads (a " + ext + " file)", path };
    // FX code as PyTorch prints it has a forward (readable code, fx_graph_runnable.py) or a graph():
    // block with placeholders (print(gm.graph)); any other text is no graph.
    const bool fx = head.find("def forward(") != std::string::npos || head.find("graph():") != std::string::npos
        || head.find("placeholder[target=") != std::string::npos || head.find("PlaceHolder[target=") != std::string::npos;
    if (!fx)
        return Error { ErrorCode::InvalidArgument,
            "not an FX graph file: no FX graph in its first 64 KiB (no 'def forward(', no 'graph():' with "
            "placeholders)",
            path };
    return Detected { SourceKind::FxGraph, "FX code (a forward or a graph(): block in its first 64 KiB)" };
}

} // namespace

Result<Detected> detectFile(const std::string& path) { return detectFileIn(path, false); }

Result<FolderContents> examineFolder(const std::string& path) { return examineFolderAt(fs::path(path), 0); }

Result<Detected> detectSource(const std::string& path)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st))
        return Error { ErrorCode::NotFound, "no such file or folder", path };
    if (fs::is_directory(st)) {
        auto c = examineFolder(path);
        if (!c)
            return c.error();
        return c->detected;
    }
    return detectFile(path);
}

namespace {

Result<uint64_t> hashFile(const fs::path& file, Md5& md5, const HashTick& tick)
{
    auto in = InputFile::open(file.string()); // refuses a FIFO or a device by name (engine/core/file_io.h)
    if (!in)
        return Error { ErrorCode::InvalidArgument, in.error().message, file.string() };
    std::string buf(1 << 16, '\0');
    uint64_t bytes = 0;
    for (;;) {
        const long long got = in->read(buf.data(), buf.size());
        if (got < 0)
            return Error { ErrorCode::Io, "cannot read the file", file.string() };
        if (got == 0)
            break;
        md5.update(std::string_view(buf.data(), size_t(got)));
        bytes += uint64_t(got);
        if (tick && bytes % (uint64_t(16) << 20) == 0 && !tick(bytes))
            return Error { ErrorCode::Cancelled, "cancelled", file.string() };
    }
    return bytes;
}

} // namespace

Result<Content> contentHash(const std::string& path, const HashTick& tick)
{
    std::error_code ec;
    Md5 md5;
    if (!fs::is_directory(path, ec)) {
        auto bytes = hashFile(path, md5, tick);
        if (!bytes)
            return bytes.error();
        return Content { md5.hexDigest(), *bytes };
    }
    auto files = walkFiles(path);
    if (!files)
        return files.error();
    Content c;
    for (const fs::path& f : *files) {
        Md5 one;
        auto bytes = hashFile(fs::path(path) / f, one, {});
        if (!bytes)
            return bytes.error();
        c.size += *bytes;
        md5.update(f.generic_string());
        md5.update(std::string_view("\0", 1));
        md5.update(std::to_string(*bytes));
        md5.update(std::string_view("\0", 1));
        md5.update(one.hexDigest());
        md5.update("\n");
    }
    c.hash = md5.hexDigest();
    return c;
}

Result<readers::FxReadResult> readGraphText(std::string_view text, const std::string& path)
{
    if (!readers::looksLikeFxRunnable(text))
        return readers::readFxText(text, path);
    auto runnable = readers::readFxRunnable(text, path);
    if (!runnable)
        return runnable.error();
    readers::FxReadResult out;
    out.diagnostics = std::move(runnable->diagnostics);
    if (runnable->graph)
        out.graphs.push_back(std::move(*runnable->graph));
    return out;
}

Result<readers::FxReadResult> readGraphFile(const std::string& path)
{
    auto text = readTextFile(path, uint64_t(256) << 20, "FX texts");
    if (!text)
        return text.error();
    return readGraphText(*text, path);
}

} // namespace engine::ingest
