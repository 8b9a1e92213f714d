// readDebugDir: a TORCH_COMPILE_DEBUG folder as groups of pass stages (debug_dir.h).
#include "engine/readers/debug_dir.h"

#include "engine/core/file_io.h"
#include "engine/core/text_codec.h"
#include "engine/passes/pipeline.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

namespace engine::readers {

namespace fs = std::filesystem;

namespace {

bool startsWith(const std::string& s, const std::string& prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isModelFolder(const std::string& name)
{
    return name.size() > 7 && startsWith(name, "model__");
}

// The file's name without "NNN_" and its extension.
std::string stageStem(const std::string& fileName)
{
    const size_t ext = endsWith(fileName, ".pbtxt") ? 6 : 4;
    return fileName.substr(4, fileName.size() - 4 - ext);
}

// Our passes, by the name TorchAir prints for them (passes/pass_report.h torchairPassName), so that
// a stage can say which of ours reproduces it.
std::string ourPassFor(const std::string& torchairName)
{
    for (const passes::PipelinePass& p : passes::pipelinePasses())
        if (passes::torchairPassName(p.name) == torchairName)
            return p.name;
    return {};
}

// "file:12:5" (what the FX readers put in Error::context) into a Diagnostic; another context, or none,
// names the file only.
Diagnostic diagnosticOf(const Error& e, const std::string& fallbackFile)
{
    Diagnostic d;
    d.severity = Diagnostic::Severity::Error;
    d.message = e.message;
    d.file = e.context.empty() ? fallbackFile : e.context;
    auto number = [](const std::string& s, size_t from, size_t to, int& out) {
        if (from >= to || to - from > 9)
            return false;
        for (size_t i = from; i < to; ++i)
            if (!isDigit(s[i]))
                return false;
        return std::from_chars(s.data() + from, s.data() + to, out).ec == std::errc();
    };
    const std::string& c = d.file;
    const size_t colon2 = c.rfind(':');
    if (colon2 != std::string::npos && colon2 > 0) {
        const size_t colon1 = c.rfind(':', colon2 - 1);
        int line = 0, column = 0;
        if (colon1 != std::string::npos && number(c, colon1 + 1, colon2, line)
            && number(c, colon2 + 1, c.size(), column)) {
            d.line = line;
            d.column = column;
            d.file = c.substr(0, colon1);
        }
    }
    return d;
}

Diagnostic warning(const std::string& file, std::string message)
{
    Diagnostic d;
    d.file = file;
    d.message = std::move(message);
    return d;
}

// A regular file (or a link to one) at `p`; false for anything else, including FIFOs and devices,
// which would block or never end when read.
bool isRegularFile(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(fs::status(p, ec));
}

// The files of an Inductor debug folder that are read (the others are kept as texts).
const char* const kInductorFiles[]
    = { "fx_graph_readable.py", "fx_graph_transformed.py", "fx_graph_runnable.py", "output_code.py" };

bool isInductorFile(const std::string& name)
{
    return std::find_if(std::begin(kInductorFiles), std::end(kInductorFiles), [&](const char* f) { return name == f; })
        != std::end(kInductorFiles);
}

// torchdynamo/debug.log, torchinductor/aot_model___0_debug.log
bool isLogFile(const fs::path& dir, const std::string& name)
{
    const std::string d = dir.filename().string();
    return (d == "torchdynamo" && name == "debug.log")
        || (d == "torchinductor" && startsWith(name, "aot_") && endsWith(name, "_debug.log"));
}

DebugText textOf(const fs::path& p)
{
    DebugText t;
    t.name = p.filename().string();
    t.path = p.string();
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    t.bytes = ec ? 0 : uint64_t(size);
    return t;
}

// Collects every directory holding stage files, depth-first, within the limits of debug_dir.h.
class Walker {
public:
    std::map<std::string, std::vector<std::string>> stageDirs; ///< directory -> stage file names
    std::set<std::string> inductorDirs; ///< `model__<aot>_<graph>_<nth>.<c>` folders with Inductor's files
    std::vector<DebugText> logs; ///< torchdynamo/debug.log, torchinductor/aot_*_debug.log
    std::vector<Diagnostic> diagnostics;

    void walk(const fs::path& dir, int depth)
    {
        std::error_code ec;
        fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
        if (ec) {
            diagnostics.push_back(warning(dir.string(), "cannot list the directory: " + ec.message()));
            return;
        }
        std::vector<fs::path> subdirs;
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec) {
                diagnostics.push_back(warning(dir.string(), "cannot list the directory: " + ec.message()));
                break;
            }
            if (++m_entries > kDebugDirMaxEntries) {
                if (!m_entryLimit)
                    diagnostics.push_back(warning(dir.string(),
                        "more than " + std::to_string(kDebugDirMaxEntries)
                            + " directory entries: the rest of the tree is not looked at"));
                m_entryLimit = true;
                return;
            }
            const fs::path p = it->path();
            std::error_code sec;
            const fs::file_status own = it->symlink_status(sec);
            if (sec)
                continue;
            const std::string name = p.filename().string();
            if (fs::is_directory(own)) {
                subdirs.push_back(p);
                continue;
            }
            // Links are followed to files only: a link to a directory could make a loop or leave the tree.
            if (fs::is_symlink(own) && fs::is_directory(fs::status(p, sec)))
                continue;
            const bool known = isInductorFile(name) || isLogFile(dir, name) || isStageFileName(name);
            if (known && !isRegularFile(p)) {
                // Named like an input but a FIFO, socket or device: said by name, never opened.
                const PathKind kind = pathKindOf(p.string());
                if (kind != PathKind::Missing)
                    diagnostics.push_back(warning(p.string(), notReadError(p.string(), kind).message));
                continue;
            }
            if (isInductorFile(name) || isLogFile(dir, name)) {
                if (isInductorFile(name) && parseInductorFolderName(dir.filename().string()))
                    inductorDirs.insert(dir.string());
                else if (isLogFile(dir, name))
                    logs.push_back(textOf(p));
                continue;
            }
            if (!isStageFileName(name) || !isRegularFile(p))
                continue;
            if (m_stages >= kDebugDirMaxStages) {
                if (!m_stageLimit)
                    diagnostics.push_back(warning(p.string(),
                        "more than " + std::to_string(kDebugDirMaxStages) + " stage files: the rest are not read"));
                m_stageLimit = true;
                continue;
            }
            ++m_stages;
            stageDirs[dir.string()].push_back(name);
        }
        std::sort(subdirs.begin(), subdirs.end());
        for (const fs::path& sub : subdirs) {
            if (m_entryLimit)
                return;
            if (depth + 1 > kDebugDirMaxDepth) {
                if (!m_depthLimit)
                    diagnostics.push_back(warning(sub.string(),
                        "deeper than " + std::to_string(kDebugDirMaxDepth)
                            + " levels below the given folder: not looked at"));
                m_depthLimit = true;
                continue;
            }
            walk(sub, depth + 1);
        }
    }

private:
    size_t m_entries = 0, m_stages = 0;
    bool m_entryLimit = false, m_stageLimit = false, m_depthLimit = false;
};

// Backend, run folder and rank from the directory's absolute path.
void describePath(DebugGroup& g, const fs::path& dir)
{
    std::error_code ec;
    fs::path abs = fs::absolute(dir, ec);
    if (ec)
        abs = dir;
    abs = abs.lexically_normal();
    if (abs.filename().empty() && abs.has_parent_path())
        abs = abs.parent_path(); // "forward/" names the folder "forward"
    for (const fs::path& part : abs) {
        const std::string s = part.string();
        if (s == "torchair" || s == "npugraph_ex")
            g.backend = s; // the innermost one wins
        if (startsWith(s, "run_")) {
            g.run = s;
            g.rank.reset();
            const size_t r = s.find("-rank_");
            if (r != std::string::npos) {
                int rank = 0;
                const char* begin = s.data() + r + 6;
                const char* end = s.data() + s.size();
                auto res = std::from_chars(begin, end, rank);
                if (res.ec == std::errc() && res.ptr != begin && rank >= 0)
                    g.rank = rank;
            }
        }
    }
    const std::string name = abs.filename().string();
    const std::string parent = abs.parent_path().filename().string();
    if (isModelFolder(name)) {
        g.model = name;
    } else {
        g.phase = name;
        if (isModelFolder(parent))
            g.model = parent;
    }
}

// output_code.py by its content: Inductor's generated module, else TorchAir's (annotated with the
// last readable stage).
void readOutputCode(DebugGroup& g)
{
    std::string head;
    {
        auto f = InputFile::open(g.outputCode); // never blocks on a FIFO (engine/core/file_io.h)
        if (!f) {
            g.diagnostics.push_back(diagnosticOf(f.error(), g.outputCode));
            return;
        }
        head = f->head(4096);
    }
    if (inductor::looksLikeInductorOutputCode(head)) {
        auto code = inductor::readInductorOutputCodeFile(g.outputCode);
        if (code)
            g.inductorCode = std::move(code.value());
        else
            g.diagnostics.push_back(diagnosticOf(code.error(), g.outputCode));
        return;
    }
    const Graph* annotated = nullptr;
    for (auto it = g.stages.rbegin(); it != g.stages.rend() && !annotated; ++it)
        if (it->kind == DebugStage::Kind::FxCode && !it->preAot && it->readable())
            annotated = &*it->graph;
    auto module = readTorchairModuleFile(g.outputCode, annotated);
    if (module)
        g.module = std::move(module.value());
    else
        g.diagnostics.push_back(diagnosticOf(module.error(), g.outputCode));
}

DebugStage readStage(const fs::path& dir, const std::string& name)
{
    DebugStage st;
    st.file = name;
    st.path = (dir / name).string();
    (void)std::from_chars(name.data(), name.data() + 3, st.number);
    st.pass = stagePassName(name);
    st.ourPass = ourPassFor(st.pass);
    if (endsWith(name, ".pbtxt")) {
        st.kind = DebugStage::Kind::GeGraph;
        st.note = "not read: GE graph (protobuf text)";
        return st;
    }
    auto r = readFxFile(st.path);
    if (!r) {
        st.error = r.error();
        return st;
    }
    st.diagnostics = std::move(r->diagnostics);
    if (r->graphs.empty())
        st.error = makeError(ErrorCode::ParseError, "no graph in the file", st.path);
    else
        st.graph = std::move(r->graphs.front());
    return st;
}

// Fills the Inductor group's stages from patches of fx_graph_runnable.py: fx_graph_readable.py
// prints neither devices nor strides, so every placeholder that the runnable describes takes its
// device and strides from there, and the other nodes, printed without a device, take the inputs'
// device when all inputs share one.
void completeFromRunnable(DebugStage& st, const FxRunnable& runnable)
{
    if (!st.graph)
        return;
    std::string common;
    bool oneDevice = true;
    for (const RunnableInput& in : runnable.inputs) {
        if (in.symInt)
            continue;
        if (common.empty())
            common = in.meta.device;
        else if (common != in.meta.device)
            oneDevice = false;
    }
    int inputs = 0, others = 0;
    // The readers leave the device empty when an annotation prints none.
    const std::string unprinted;
    for (Node& n : st.graph->nodes) {
        if (n.op == NodeOp::Placeholder) {
            const RunnableInput* in = runnable.input(n.name);
            if (!in || in->symInt || n.outputs.size() != 1)
                continue;
            TensorMeta& m = n.outputs[0];
            bool changed = false;
            if (m.device != in->meta.device) {
                m.device = in->meta.device;
                changed = true;
            }
            if (m.stride.empty() && in->meta.stride.size() == m.shape.size()) {
                m.stride = in->meta.stride;
                changed = true;
            }
            inputs += changed;
            continue;
        }
        if (!oneDevice || common.empty() || common == unprinted)
            continue;
        for (TensorMeta& m : n.outputs)
            if (m.device == unprinted) {
                m.device = common;
                ++others;
            }
    }
    if (inputs || others)
        st.note = "from fx_graph_runnable.py: the devices and strides of " + std::to_string(inputs)
            + " inputs (load_args)"
            + (others ? ", and device " + common + " for " + std::to_string(others)
                        + " other tensors printed without one (all inputs are on it)"
                      : std::string());
}

DebugGroup readInductorGroup(const fs::path& dir)
{
    DebugGroup g;
    g.layout = DebugLayout::Inductor;
    g.directory = dir.string();
    describePath(g, dir);
    g.backend = "inductor";
    std::string graph;
    parseInductorFolderName(dir.filename().string(), &g.aotId, &graph, &g.nthGraph, &g.debugCounter);
    g.model = "model__" + std::to_string(g.aotId);
    g.phase = graph;

    const fs::path runnable = dir / "fx_graph_runnable.py";
    if (isRegularFile(runnable)) {
        g.runnablePath = runnable.string();
        auto r = readFxRunnableFile(g.runnablePath);
        if (r)
            g.runnable = std::move(r.value());
        else
            g.diagnostics.push_back(diagnosticOf(r.error(), g.runnablePath));
    }
    int number = 0;
    for (const char* file : { "fx_graph_readable.py", "fx_graph_transformed.py" }) {
        const fs::path p = dir / file;
        if (!isRegularFile(p)) {
            ++number;
            continue;
        }
        DebugStage st;
        st.number = number++;
        st.file = file;
        st.path = p.string();
        st.pass = st.file.substr(0, st.file.size() - 3); // "fx_graph_readable"
        auto r = readFxFile(st.path);
        if (!r) {
            st.error = r.error();
        } else {
            st.diagnostics = std::move(r->diagnostics);
            if (r->graphs.empty())
                st.error = makeError(ErrorCode::ParseError, "no graph in the file", st.path);
            else
                st.graph = std::move(r->graphs.front());
        }
        if (g.runnable)
            completeFromRunnable(st, *g.runnable);
        g.stages.push_back(std::move(st));
    }
    const fs::path outputCode = dir / "output_code.py";
    if (isRegularFile(outputCode)) {
        g.outputCode = outputCode.string();
        readOutputCode(g);
    }
    // The other regular files, for a UI to show.
    std::error_code ec;
    std::vector<DebugText> texts;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    for (size_t n = 0; !ec && it != fs::directory_iterator() && n < 1000; it.increment(ec), ++n) {
        const std::string name = it->path().filename().string();
        if (!isInductorFile(name) && isRegularFile(it->path()))
            texts.push_back(textOf(it->path()));
    }
    std::sort(texts.begin(), texts.end(), [](const DebugText& a, const DebugText& b) { return a.name < b.name; });
    g.texts = std::move(texts);
    return g;
}

} // namespace

bool isStageFileName(const std::string& fileName)
{
    if (fileName.size() < 4 || !isDigit(fileName[0]) || !isDigit(fileName[1]) || !isDigit(fileName[2])
        || fileName[3] != '_')
        return false;
    // Something must come between "NNN_" and the extension.
    return (endsWith(fileName, ".txt") && fileName.size() > 8)
        || (endsWith(fileName, ".pbtxt") && fileName.size() > 10);
}

std::string stagePassName(const std::string& fileName)
{
    if (!isStageFileName(fileName))
        return {};
    const std::string stem = stageStem(fileName);
    const size_t after = stem.find("_after_");
    return after == std::string::npos ? stem : stem.substr(after + 7);
}

std::string DebugGroup::label() const
{
    if (model.empty())
        return phase;
    return phase.empty() ? model : model + "/" + phase;
}

int DebugGroup::previousReadable(size_t i) const
{
    for (size_t j = std::min(i, stages.size()); j-- > 0;)
        if (stages[j].readable() && !stages[j].preAot)
            return int(j);
    return -1;
}

Result<DebugDir> readDebugDir(const std::string& path)
{
    std::error_code ec;
    // "model__0/forward/" names the folder "forward": without this its parent would be itself.
    fs::path root(path);
    while (root.filename().empty() && root.has_parent_path() && root.parent_path() != root)
        root = root.parent_path();
    const fs::file_status st = fs::status(root, ec);
    if (ec || !fs::exists(st))
        return makeError(
            ErrorCode::NotFound, "no such folder: " + (ec ? ec.message() : std::string("it does not exist")), path);
    if (!fs::is_directory(st))
        return makeError(ErrorCode::InvalidArgument,
            "not a folder: give a TORCH_COMPILE_DEBUG run folder, its torchair or npugraph_ex folder, a model__N "
            "folder or a forward folder",
            path);

    Walker walker;
    walker.walk(root, 0);
    DebugDir out;
    out.path = path;
    out.diagnostics = std::move(walker.diagnostics);
    out.logs = std::move(walker.logs);
    if (walker.stageDirs.empty() && walker.inductorDirs.empty())
        return makeError(ErrorCode::NotFound,
            "no TorchAir stage dumps and no Inductor dumps found: looked for files named NNN_*.txt or NNN_*.pbtxt "
            "(TorchAir: torchair/model__N/forward/000_aot_forward_graph.txt, ...) and for folders named "
            "model__<aot>_<graph>_<nth>.<c> holding fx_graph_readable.py, fx_graph_transformed.py, "
            "fx_graph_runnable.py or output_code.py (Inductor: torchinductor/model__0_inference_0.0/) up to "
                + std::to_string(kDebugDirMaxDepth) + " levels below this folder",
            path);

    for (auto& [dirText, files] : walker.stageDirs) {
        const fs::path dir(dirText);
        DebugGroup g;
        g.directory = dirText;
        describePath(g, dir);

        std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
            return a.compare(0, 3, b, 0, 3) != 0 ? a.compare(0, 3, b, 0, 3) < 0 : a < b;
        });
        // Dynamo's graph belongs to the model, which is what its forward starts from; the backward is
        // AOT's own derivation and gets no pre-AOT stage.
        if (g.phase != "backward") {
            const fs::path modelDir = g.phase.empty() ? dir : dir.parent_path();
            const fs::path dynamo = modelDir / "dynamo_out_graph.txt";
            if (isRegularFile(dynamo)) {
                DebugStage pre;
                pre.file = "dynamo_out_graph.txt";
                pre.path = dynamo.string();
                pre.pass = "dynamo_out_graph";
                pre.preAot = true;
                auto r = readFxFile(pre.path);
                if (!r) {
                    pre.error = r.error();
                } else {
                    pre.diagnostics = std::move(r->diagnostics);
                    if (!r->graphs.empty())
                        pre.graph = std::move(r->graphs.front());
                }
                g.stages.push_back(std::move(pre));
            }
        }
        for (const std::string& f : files)
            g.stages.push_back(readStage(dir, f));

        const fs::path outputCode = dir / "output_code.py";
        if (isRegularFile(outputCode)) {
            g.outputCode = outputCode.string();
            readOutputCode(g);
        }
        out.groups.push_back(std::move(g));
    }
    for (const std::string& dir : walker.inductorDirs)
        out.groups.push_back(readInductorGroup(fs::path(dir)));
    std::sort(out.groups.begin(), out.groups.end(),
        [](const DebugGroup& a, const DebugGroup& b) { return a.directory < b.directory; });
    std::sort(out.logs.begin(), out.logs.end(), [](const DebugText& a, const DebugText& b) { return a.path < b.path; });
    return out;
}

bool parseInductorFolderName(const std::string& name, int* aotId, std::string* graph, int* nth, int* counter)
{
    // model__<aot>_<graph>_<nth>.<c>
    if (name.size() < 7 || name.compare(0, 7, "model__") != 0)
        return false;
    auto number = [](const std::string& s, size_t from, size_t to, int& out) {
        if (from >= to || to - from > 9)
            return false;
        for (size_t i = from; i < to; ++i)
            if (s[i] < '0' || s[i] > '9')
                return false;
        return std::from_chars(s.data() + from, s.data() + to, out).ec == std::errc();
    };
    const size_t dot = name.rfind('.');
    if (dot == std::string::npos)
        return false;
    const size_t firstUnderscore = name.find('_', 7);
    const size_t lastUnderscore = name.rfind('_', dot);
    if (firstUnderscore == std::string::npos || lastUnderscore == std::string::npos
        || lastUnderscore <= firstUnderscore + 1)
        return false;
    int a = 0, n = 0, c = 0;
    if (!number(name, 7, firstUnderscore, a) || !number(name, lastUnderscore + 1, dot, n)
        || !number(name, dot + 1, name.size(), c))
        return false;
    if (aotId)
        *aotId = a;
    if (graph)
        *graph = name.substr(firstUnderscore + 1, lastUnderscore - firstUnderscore - 1);
    if (nth)
        *nth = n;
    if (counter)
        *counter = c;
    return true;
}

Result<DebugTextContent> readDebugText(const DebugText& text, uint64_t maxBytes)
{
    auto f = InputFile::open(text.path); // refuses a FIFO, a device, a folder (engine/core/file_io.h)
    if (!f)
        return f.error();
    DebugTextContent out;
    const uint64_t want = std::min(f->size(), maxBytes);
    out.text.resize(size_t(want));
    const long long got = f->read(out.text.data(), out.text.size());
    if (got < 0)
        return makeError(ErrorCode::Io, "cannot read the file", text.path);
    out.text.resize(size_t(got));
    out.truncated = f->size() > out.text.size();
    return out;
}

} // namespace engine::readers
