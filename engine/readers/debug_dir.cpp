// readDebugDir: a TORCH_COMPILE_DEBUG folder as groups of pass stages (debug_dir.h).
#include "engine/readers/debug_dir.h"

#include "engine/core/text_codec.h"
#include "engine/passes/pass_report.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
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
    static const char* const ours[] = { "remove_noop_ops", "view_to_reshape", "remove_cat_ops", "eliminate_dead_code",
        "reinplace_inplaceable_ops_pass", "reinplace_input_mutated_ops" };
    for (const char* p : ours)
        if (passes::torchairPassName(p) == torchairName)
            return p;
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

// Collects every directory holding stage files, depth-first, within the limits of debug_dir.h.
class Walker {
public:
    std::map<std::string, std::vector<std::string>> stageDirs; ///< directory -> stage file names
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
    if (walker.stageDirs.empty())
        return makeError(ErrorCode::NotFound,
            "no TorchAir stage dumps found: looked for files named NNN_*.txt or NNN_*.pbtxt "
            "(model__N/forward/000_aot_forward_graph.txt, ...) up to "
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
        out.groups.push_back(std::move(g));
    }
    return out;
}

} // namespace engine::readers
