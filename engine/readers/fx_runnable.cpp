// readFxRunnable: fx_graph_runnable.py's inputs, config and Repro graph (fx_runnable.h).
#include "engine/readers/fx_runnable.h"

#include "engine/core/file_io.h"
#include "engine/core/text_codec.h"
#include "engine/readers/inductor_text.h"

#include <filesystem>
#include <map>
#include <system_error>

namespace engine::readers {

namespace {

using namespace inductor::text;

constexpr uint64_t kMaxFileBytes = 64ull << 20;
constexpr size_t kMaxDiagnostics = 1000;

struct StorageInfo {
    uint64_t bytes = 0;
    std::string device;
    DType dtypeHint = DType::F32;
};

// Contiguous strides for `shape`, or none when a size is symbolic.
std::optional<std::vector<SymExpr>> contiguousStrides(const std::vector<SymExpr>& shape)
{
    std::vector<SymExpr> out(shape.size());
    int64_t running = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        out[i] = SymExpr::constant(running);
        auto v = shape[i].constantValue();
        if (!v)
            return std::nullopt;
        if (*v > 1) {
            if (running > (int64_t(1) << 50) / *v)
                return std::nullopt;
            running *= *v;
        }
    }
    return out;
}

// `"f32[1024, 256][256, 1]cuda:0"` as the FX readers read annotations.
std::string annotation(const RunnableInput& in)
{
    if (in.symInt)
        return "Sym(" + in.name + ")";
    std::string s = dtypeShortName(in.meta.dtype) + "[";
    for (size_t i = 0; i < in.meta.shape.size(); ++i)
        s += (i ? ", " : "") + in.meta.shape[i].text();
    s += "]";
    if (!in.meta.stride.empty()) {
        s += "[";
        for (size_t i = 0; i < in.meta.stride.size(); ++i)
            s += (i ? ", " : "") + in.meta.stride[i].text();
        s += "]";
    }
    return s + in.meta.device;
}

class Reader {
public:
    Reader(std::string_view text, const std::string& path)
        : m_text(text)
    {
        m_out.path = path;
    }
    Result<FxRunnable> run();

private:
    std::string_view m_text;
    FxRunnable m_out;
    std::vector<std::string_view> m_lines;
    std::map<std::string, StorageInfo> m_storages;

    void warn(int line, const std::string& message)
    {
        if (m_out.diagnostics.size() >= kMaxDiagnostics)
            return;
        Diagnostic d;
        d.file = m_out.path;
        d.line = line;
        d.column = 1;
        d.message = message;
        m_out.diagnostics.push_back(std::move(d));
    }
    void loadArgsLine(std::string_view t, int line);
    void readRepro(size_t classLine);
};

void Reader::loadArgsLine(std::string_view t, int line)
{
    std::string_view comment;
    const std::string_view code = stripComment(t, &comment);
    std::string_view callee, inner;
    const size_t eq = code.find(" = ");
    if (eq != std::string_view::npos) {
        const std::string_view lhs = trim(code.substr(0, eq));
        if (!isIdentifier(lhs) || !splitCall(trim(code.substr(eq + 3)), callee, inner) || callee != "reader.storage") {
            warn(line, "load_args: not understood: '" + std::string(t.substr(0, 80)) + "'");
            return;
        }
        const auto args = splitTopLevel(inner);
        StorageInfo st;
        auto nbytes = args.size() >= 2 ? parseInt(args[1]) : std::nullopt;
        if (!nbytes || *nbytes < 0) {
            warn(line, "load_args: reader.storage(...) without a byte count");
            return;
        }
        st.bytes = uint64_t(*nbytes);
        const std::string_view dev = keywordArg(args, "device");
        st.device = dev.empty() ? "cpu" : deviceOf(dev);
        if (st.device.empty()) {
            warn(line, "load_args: a device that is not read: '" + std::string(dev.substr(0, 60)) + "'");
            st.device = std::string(dev);
        }
        const std::string_view hint = keywordArg(args, "dtype_hint");
        if (!hint.empty())
            st.dtypeHint = dtypeOf(hint);
        m_storages[std::string(lhs)] = std::move(st);
        return;
    }
    if (!splitCall(code, callee, inner) || (callee != "reader.tensor" && callee != "reader.symint")) {
        if (!startsWith(code, "pass"))
            warn(line, "load_args: not understood: '" + std::string(t.substr(0, 80)) + "'");
        return;
    }
    RunnableInput in;
    in.line = line;
    in.name = std::string(trim(comment));
    if (!isIdentifier(in.name)) {
        in.name = "input_" + std::to_string(m_out.inputs.size());
        warn(line, "load_args: no `# name` comment after the call: named " + in.name);
    }
    const auto args = splitTopLevel(inner);
    if (callee == "reader.symint") {
        in.symInt = true;
        auto v = args.empty() ? std::nullopt : parseInt(args[0]);
        if (!v)
            warn(line, "load_args: reader.symint(...) without an integer");
        in.value = v.value_or(0);
        m_out.inputs.push_back(std::move(in));
        return;
    }
    if (args.size() < 2 || !isIdentifier(args[0])) {
        warn(line, "load_args: reader.tensor(...) without a storage and sizes: input " + in.name + " skipped");
        return;
    }
    auto st = m_storages.find(std::string(args[0]));
    if (st == m_storages.end()) {
        warn(line,
            "load_args: storage '" + std::string(args[0]) + "' is not defined above: input " + in.name + " skipped");
        return;
    }
    auto shape = parseTuple(args[1]);
    if (!shape) {
        warn(line,
            "load_args: sizes not read: '" + std::string(args[1].substr(0, 60)) + "': input " + in.name + " skipped");
        return;
    }
    in.storage = st->first;
    in.storageBytes = st->second.bytes;
    in.meta.shape = std::move(*shape);
    in.meta.device = st->second.device;
    std::string_view strideText = keywordArg(args, "stride");
    if (strideText.empty() && args.size() >= 3 && args[2].find('=') == std::string_view::npos)
        strideText = args[2];
    if (!strideText.empty()) {
        auto stride = parseTuple(strideText);
        if (!stride || stride->size() != in.meta.shape.size())
            warn(line, "load_args: strides not read for " + in.name + ": taken as contiguous");
        else
            in.meta.stride = std::move(*stride);
    }
    if (in.meta.stride.empty())
        if (auto c = contiguousStrides(in.meta.shape))
            in.meta.stride = std::move(*c);
    const std::string_view dtype = keywordArg(args, "dtype");
    in.meta.dtype = dtype.empty() ? DType::F32 : dtypeOf(dtype);
    if (in.meta.dtype == DType::Unknown)
        warn(line, "load_args: unknown dtype '" + std::string(dtype.substr(0, 40)) + "' for " + in.name);
    if (auto off = parseInt(keywordArg(args, "storage_offset")))
        in.meta.storageOffset = *off;
    m_out.inputs.push_back(std::move(in));
}

void Reader::readRepro(size_t classLine)
{
    const std::string_view classText = m_lines[classLine];
    const int classIndent = indentOf(classText);
    // forward's signature (it may span lines up to `):`) and body.
    size_t def = std::string_view::npos;
    for (size_t i = classLine + 1; i < m_lines.size(); ++i) {
        const std::string_view t = trim(m_lines[i]);
        if (!t.empty() && indentOf(m_lines[i]) <= classIndent)
            break;
        if (startsWith(t, "def forward(")) {
            def = i;
            break;
        }
    }
    if (def == std::string_view::npos) {
        warn(int(classLine) + 1, "class Repro has no `def forward(`: no graph");
        return;
    }
    const int defIndent = indentOf(m_lines[def]);
    std::string signature;
    size_t bodyStart = def;
    for (size_t i = def; i < m_lines.size() && i < def + 10000; ++i) {
        signature += std::string(trim(m_lines[i]));
        signature += ' ';
        bodyStart = i + 1;
        if (endsWith(trim(m_lines[i]), ":"))
            break;
    }
    std::string_view sig = trim(std::string_view(signature));
    const size_t open = sig.find('(');
    const size_t close = matching(sig, open);
    if (close == std::string_view::npos) {
        warn(int(def) + 1, "forward's signature is not closed: no graph");
        return;
    }
    for (std::string_view p : splitTopLevel(sig.substr(open + 1, close - open - 1))) {
        const size_t colon = p.find(':');
        const std::string_view name = trim(colon == std::string_view::npos ? p : p.substr(0, colon));
        if (name != "self")
            m_out.forwardParameters.emplace_back(name);
    }
    // Annotate each parameter with its load_args input, by position.
    std::string code = std::string(trim(classText)) + "\n    def forward(self";
    for (size_t i = 0; i < m_out.forwardParameters.size(); ++i) {
        const std::string& p = m_out.forwardParameters[i];
        code += ", " + p;
        if (i < m_out.inputs.size()) {
            const RunnableInput& in = m_out.inputs[i];
            if (in.name != p)
                warn(in.line,
                    "load_args' input " + std::to_string(i) + " is named " + in.name + ", forward's parameter " + p
                        + ": matched by position");
            code += ": \"" + annotation(in) + "\"";
        }
    }
    if (m_out.forwardParameters.size() != m_out.inputs.size())
        warn(int(def) + 1,
            "forward has " + std::to_string(m_out.forwardParameters.size()) + " parameters, load_args "
                + std::to_string(m_out.inputs.size()) + " inputs");
    code += "):\n";
    // The body, re-indented under the class as the readable form prints it (8 spaces).
    size_t lastBodyLine = bodyStart;
    for (size_t i = bodyStart; i < m_lines.size(); ++i) {
        const std::string_view raw = m_lines[i];
        const std::string_view t = trim(raw);
        if (!t.empty() && indentOf(raw) <= defIndent)
            break;
        lastBodyLine = i + 1;
    }
    for (size_t i = bodyStart; i < lastBodyLine; ++i) {
        const std::string_view raw = m_lines[i];
        const std::string_view t = trim(raw);
        if (t.empty()) {
            code += "\n";
            continue;
        }
        code += "        ";
        code += std::string(raw.substr(std::min<size_t>(raw.size(), size_t(defIndent) + 4)));
        code += "\n";
    }
    m_out.annotatedCode = code;
    auto r = readFxCode(code, m_out.path + " (Repro.forward annotated from load_args)");
    if (!r) {
        warn(int(def) + 1, "Repro.forward not read: " + r.error().toString());
        return;
    }
    for (Diagnostic& d : r->diagnostics)
        if (m_out.diagnostics.size() < kMaxDiagnostics)
            m_out.diagnostics.push_back(std::move(d));
    if (r->graphs.empty()) {
        warn(int(def) + 1, "Repro.forward gives no graph");
        return;
    }
    m_out.graph = std::move(r->graphs.front());
    m_out.graph->id = "Repro";
}

Result<FxRunnable> Reader::run()
{
    size_t pos = 0;
    while (pos <= m_text.size()) {
        size_t end = m_text.find('\n', pos);
        if (end == std::string_view::npos)
            end = m_text.size();
        std::string_view raw = m_text.substr(pos, end - pos);
        if (!raw.empty() && raw.back() == '\r')
            raw.remove_suffix(1);
        m_lines.push_back(raw);
        if (end == m_text.size())
            break;
        pos = end + 1;
    }
    size_t loadArgs = std::string_view::npos, repro = std::string_view::npos;
    for (size_t i = 0; i < m_lines.size(); ++i) {
        const std::string_view raw = m_lines[i];
        const std::string_view t = trim(raw);
        if (indentOf(raw) != 0 || t.empty())
            continue;
        if (startsWith(t, "# torch version:"))
            m_out.torchVersion = std::string(trim(t.substr(16)));
        else if (startsWith(t, "def load_args(") && loadArgs == std::string_view::npos)
            loadArgs = i;
        else if (startsWith(t, "class Repro(") && repro == std::string_view::npos)
            repro = i;
        else if (startsWith(t, "torch.") && t.find(".config.") != std::string_view::npos) {
            const std::string_view code = stripComment(t);
            const size_t eq = code.find(" = ");
            if (eq != std::string_view::npos)
                m_out.config.emplace_back(trim(code.substr(0, eq)), trim(code.substr(eq + 3)));
        }
    }
    if (loadArgs == std::string_view::npos && repro == std::string_view::npos)
        return makeError(ErrorCode::ParseError,
            "not an fx_graph_runnable.py: no `def load_args(reader)` and no `class Repro(`", m_out.path);
    if (loadArgs == std::string_view::npos) {
        warn(0, "no `def load_args(reader)`: the inputs have no metadata");
    } else {
        for (size_t i = loadArgs + 1; i < m_lines.size(); ++i) {
            const std::string_view raw = m_lines[i];
            const std::string_view t = trim(raw);
            if (t.empty() || startsWith(t, "#"))
                continue;
            if (indentOf(raw) == 0)
                break;
            loadArgsLine(t, int(i) + 1);
        }
    }
    if (repro == std::string_view::npos)
        warn(0, "no `class Repro(`: no graph");
    else
        readRepro(repro);
    return std::move(m_out);
}

} // namespace

const RunnableInput* FxRunnable::input(const std::string& name) const
{
    for (const RunnableInput& in : inputs)
        if (in.name == name)
            return &in;
    return nullptr;
}

bool looksLikeFxRunnable(std::string_view head)
{
    return (head.find("class Repro(") != std::string_view::npos
               && head.find("def load_args(") != std::string_view::npos)
        || head.find("torch._dynamo.repro.after_aot") != std::string_view::npos;
}

Result<FxRunnable> readFxRunnable(std::string_view text, const std::string& path)
{
    Reader reader(text, path);
    return reader.run();
}

Result<FxRunnable> readFxRunnableFile(const std::string& path)
{
    auto text = readTextFile(path, kMaxFileBytes, "fx_graph_runnable files"); // refuses FIFOs and devices unopened
    if (!text)
        return text.error();
    return readFxRunnable(text.value(), path);
}

} // namespace engine::readers
