// readInductorOutputCode: Inductor's generated module read statically (inductor_code.h).
#include "engine/readers/inductor_code.h"

#include "engine/core/file_io.h"
#include "engine/core/text_codec.h"
#include "engine/readers/inductor_plan.h"
#include "engine/readers/inductor_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <unordered_map>

namespace engine::readers::inductor {

namespace {

constexpr uint64_t kMaxFileBytes = 64ull << 20;
constexpr size_t kMaxDiagnostics = 1000; ///< more are counted in one last diagnostic
using namespace text;

// The annotation of a graph-fragment line `%x : Tensor "f32[1, 16][16, 1]cuda:0" = ...`: dtype and device.
bool fragmentMeta(std::string_view line, DType& dtype, std::string& device)
{
    const size_t q1 = line.find('"');
    if (q1 == std::string_view::npos)
        return false;
    const size_t q2 = line.find('"', q1 + 1);
    if (q2 == std::string_view::npos)
        return false;
    std::string_view ann = line.substr(q1 + 1, q2 - q1 - 1);
    const size_t bracket = ann.find('[');
    const size_t last = ann.rfind(']');
    if (bracket == std::string_view::npos || last == std::string_view::npos || bracket == 0)
        return false;
    dtype = parseDType(std::string(ann.substr(0, bracket)));
    device = std::string(trim(ann.substr(last + 1)));
    return true;
}

struct FunctionState {
    std::string name; ///< "" when not in a plan function
    int indent = 0;
};

class Reader {
public:
    Reader(std::string_view text, const std::string& path)
        : m_text(text)
    {
        m_out.path = path;
    }

    Result<OutputCode> run();

private:
    std::string_view m_text;
    OutputCode m_out;
    int m_lineNo = 0;
    size_t m_suppressed = 0;

    // Where we are.
    enum class Section { Top, Plan, GetArgs, OtherDef, RunnerClass, Kernel };
    Section m_section = Section::Top;
    int m_sectionIndent = 0;
    std::string m_function; ///< the plan function whose body we are in
    bool m_inRunner = false;
    int m_runnerIndent = 0;
    // A kernel's source string.
    size_t m_kernelIndex = 0;
    std::string m_closeQuote;

    // Comments gathered for the next kernel / plan step.
    std::vector<std::string_view> m_pendingComments;
    std::vector<std::string> m_pendingSourceNodes;
    std::vector<std::string> m_pendingAten;
    std::string m_guardDevice; ///< "cuda:0" from `_DeviceGuard(0)`; the index only
    int m_guardIndex = -1;

    std::set<std::string> m_known; ///< inputs and buffers named so far
    std::map<std::string, TensorMeta> m_metaOf; ///< what each buffer name holds, when known
    std::map<std::string, size_t> m_inputIndex; ///< input name -> index into m_out.inputs
    std::unordered_map<std::string, size_t> m_kernelIndexOf;
    // get_args() and fragments give dtypes and devices of names.
    std::map<std::string, std::pair<DType, std::string>> m_fragmentMeta;
    std::map<std::string, TensorMeta> m_getArgs;
    std::set<std::string> m_getArgsInts;

    void warn(const std::string& message, int line = 0)
    {
        if (m_out.diagnostics.size() >= kMaxDiagnostics) {
            ++m_suppressed;
            return;
        }
        Diagnostic d;
        d.file = m_out.path;
        d.line = line ? line : m_lineNo;
        d.column = 1;
        d.message = message;
        m_out.diagnostics.push_back(std::move(d));
    }

    void line(std::string_view raw);
    void topLevel(std::string_view t, std::string_view raw);
    void kernelStart(std::string_view name, std::string_view rhs);
    void kernelComments(Kernel& k);
    void planLine(std::string_view t);
    void getArgsLine(std::string_view t);
    bool assignment(
        std::string_view lhs, std::string_view rhs, std::string_view restAfterSemicolon, std::string_view comment);
    void expression(std::string_view t);
    PlanStep step(PlanStep::Kind kind, std::string name)
    {
        PlanStep s;
        s.kind = kind;
        s.line = m_lineNo;
        s.function = m_function;
        s.name = std::move(name);
        return s;
    }
    std::vector<std::string> namesIn(std::string_view s) const;
    void defineInputs(std::string_view lhs);
    std::string allocDevice(std::string_view fn) const;
    void finish();
};

std::vector<std::string> Reader::namesIn(std::string_view s) const
{
    std::vector<std::string> out;
    size_t i = 0;
    char quote = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (quote) {
            if (c == '\\')
                ++i;
            else if (c == quote)
                quote = 0;
            ++i;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            ++i;
            continue;
        }
        if (isIdentStart(c) && (i == 0 || (!isIdentChar(s[i - 1]) && s[i - 1] != '.'))) {
            size_t j = i;
            while (j < s.size() && isIdentChar(s[j]))
                ++j;
            const std::string name(s.substr(i, j - i));
            size_t k = j;
            while (k < s.size() && s[k] == ' ')
                ++k;
            const bool keyword = k < s.size() && s[k] == '=' && (k + 1 >= s.size() || s[k + 1] != '=');
            const bool call = k < s.size() && s[k] == '(';
            if (!keyword && !call && m_known.count(name))
                out.push_back(name);
            i = j;
            continue;
        }
        ++i;
    }
    return out;
}

void Reader::defineInputs(std::string_view lhs)
{
    const bool entry = m_function == "call" || m_function == "Runner.call";
    std::vector<std::string> names;
    for (std::string_view item : splitTopLevel(lhs)) {
        if (!isIdentifier(item)) {
            warn("an unpacked argument that is not a name: '" + std::string(item.substr(0, 60)) + "'");
            continue;
        }
        names.emplace_back(item);
        m_known.insert(names.back());
    }
    if (!entry)
        return; // a partition's arguments: the inputs under the same names, in another order
    if (!m_out.entry.empty()) {
        warn("a second `= args` in " + m_function + "(): the first one gives the inputs' order");
        return;
    }
    m_out.entry = m_function;
    // The entry's order is the inputs' order; a partition read before may have added them in its own.
    std::vector<Input> ordered;
    std::set<std::string> placed;
    std::vector<bool> taken(m_out.inputs.size(), false);
    for (const std::string& name : names) {
        if (!placed.insert(name).second)
            continue;
        auto it = m_inputIndex.find(name);
        if (it != m_inputIndex.end()) {
            taken[it->second] = true;
            ordered.push_back(std::move(m_out.inputs[it->second]));
        } else {
            Input in;
            in.name = name;
            in.meta.device.clear();
            in.meta.dtype = DType::Unknown;
            ordered.push_back(std::move(in));
        }
    }
    for (size_t i = 0; i < m_out.inputs.size(); ++i)
        if (!taken[i])
            ordered.push_back(std::move(m_out.inputs[i]));
    m_out.inputs = std::move(ordered);
    m_inputIndex.clear();
    for (size_t i = 0; i < m_out.inputs.size(); ++i)
        m_inputIndex[m_out.inputs[i].name] = i;
}

std::string Reader::allocDevice(std::string_view fn) const
{
    // empty_strided_cuda / _cpu / _xpu / _mtia / _cpu_pinned
    std::string_view kind = fn.substr(std::string_view("empty_strided").size());
    if (startsWith(kind, "_"))
        kind.remove_prefix(1);
    if (kind.empty())
        return {};
    if (startsWith(kind, "cpu"))
        return "cpu";
    std::string dev(kind);
    if (m_guardIndex >= 0)
        dev += ":" + std::to_string(m_guardIndex);
    return dev;
}

void Reader::kernelComments(Kernel& k)
{
    enum { None, Mapping, Fragment } block = None;
    for (std::string_view c : m_pendingComments) {
        std::string_view body = trim(c.substr(1)); // after '#'
        if (startsWith(body, "kernel path:")) {
            k.kernelPath = std::string(trim(body.substr(12)));
            block = None;
        } else if ((startsWith(body, "Topologically Sorted Source Nodes:") || startsWith(body, "Source Nodes:"))) {
            const size_t aten = body.find("Original ATen:");
            k.sourceNodes = bracketList(body.substr(0, aten));
            if (aten != std::string_view::npos)
                k.originalAten = bracketList(body.substr(aten));
            block = None;
        } else if (startsWith(body, "Source node to ATen node mapping:")) {
            block = Mapping;
        } else if (startsWith(body, "Graph fragment:")) {
            block = Fragment;
        } else if (block == Mapping) {
            const size_t arrow = body.find("=>");
            if (arrow != std::string_view::npos)
                k.sourceToAten.emplace_back(trim(body.substr(0, arrow)), trim(body.substr(arrow + 2)));
        } else if (block == Fragment) {
            k.fragment.emplace_back(body);
            if (startsWith(body, "%")) {
                const size_t colon = body.find(" :");
                if (colon == std::string_view::npos)
                    continue;
                const std::string name(trim(body.substr(1, colon - 1)));
                if (body.find("= PlaceHolder[") != std::string_view::npos) {
                    DType dt;
                    std::string dev;
                    if (fragmentMeta(body, dt, dev))
                        m_fragmentMeta.emplace(name, std::make_pair(dt, dev));
                } else {
                    k.fragmentNodes.push_back(name);
                }
            }
        }
    }
}

void Reader::kernelStart(std::string_view name, std::string_view rhs)
{
    Kernel k;
    k.name = std::string(name);
    const size_t open = rhs.find('(');
    k.kind = std::string(rhs.substr(14, open == std::string_view::npos ? std::string_view::npos : open - 14));
    k.line = m_lineNo;
    kernelComments(k);
    m_pendingComments.clear();
    // The source string: `'''` or `"""` opened on this line and not closed on it.
    for (const char* q : { "'''", "\"\"\"" }) {
        size_t count = 0;
        for (size_t p = rhs.find(q); p != std::string_view::npos; p = rhs.find(q, p + 3))
            ++count;
        if (count % 2 == 1) {
            m_closeQuote = q;
            m_section = Section::Kernel;
            break;
        }
    }
    if (m_kernelIndexOf.count(k.name))
        warn("kernel '" + k.name + "' is compiled a second time: the later one is kept");
    m_kernelIndexOf[k.name] = m_out.kernels.size();
    m_kernelIndex = m_out.kernels.size();
    m_out.kernels.push_back(std::move(k));
}

Result<OutputCode> Reader::run()
{
    size_t pos = 0;
    while (pos <= m_text.size()) {
        size_t end = m_text.find('\n', pos);
        if (end == std::string_view::npos)
            end = m_text.size();
        std::string_view raw = m_text.substr(pos, end - pos);
        if (!raw.empty() && raw.back() == '\r')
            raw.remove_suffix(1);
        ++m_lineNo;
        line(raw);
        if (end == m_text.size())
            break;
        pos = end + 1;
    }
    if (m_section == Section::Kernel)
        warn("the source of kernel '" + m_out.kernels[m_kernelIndex].name
                + "' is not closed: the file ends inside it (truncated?)",
            m_out.kernels[m_kernelIndex].line);
    if (m_out.kernels.empty() && m_out.functions.empty() && m_out.aotIds.empty())
        return makeError(ErrorCode::ParseError,
            "not an Inductor generated module (output_code.py): no `# AOT ID:` line, no `async_compile` kernel and no "
            "`def call(args)`",
            m_out.path);
    finish();
    if (m_suppressed)
        warn(std::to_string(m_suppressed) + " more lines not understood", m_lineNo);
    return std::move(m_out);
}

void Reader::line(std::string_view raw)
{
    if (m_section == Section::Kernel) {
        Kernel& k = m_out.kernels[m_kernelIndex];
        if (raw.find(m_closeQuote) != std::string_view::npos) {
            m_section = Section::Top;
            return;
        }
        ++k.sourceLines;
        std::string_view t = trim(raw);
        if (k.parameters.empty() && startsWith(t, "def ")) {
            std::string_view callee, inner;
            std::string_view sig = t.substr(4);
            if (!sig.empty() && sig.back() == ':')
                sig.remove_suffix(1);
            const size_t arrow = sig.find("->");
            if (arrow != std::string_view::npos)
                sig = trim(sig.substr(0, arrow));
            if (splitCall(sig, callee, inner))
                for (std::string_view p : splitTopLevel(inner)) {
                    const size_t colon = p.find(':');
                    k.parameters.emplace_back(trim(colon == std::string_view::npos ? p : p.substr(0, colon)));
                }
        }
        return;
    }
    const std::string_view t = trim(raw);
    if (t.empty())
        return;
    const int indent = indentOf(raw);
    // Leaving a function or class body.
    if (m_section != Section::Top && indent <= m_sectionIndent && !startsWith(t, "#")) {
        m_section = m_inRunner && indent > m_runnerIndent ? Section::RunnerClass : Section::Top;
        m_function.clear();
    }
    if (m_inRunner && indent <= m_runnerIndent && !startsWith(t, "#"))
        m_inRunner = false;
    if (m_section == Section::Top && m_inRunner)
        m_section = Section::RunnerClass;

    if (m_section == Section::Plan) {
        planLine(t);
        return;
    }
    if (m_section == Section::GetArgs) {
        getArgsLine(t);
        return;
    }
    if (m_section == Section::OtherDef)
        return;
    if (m_section == Section::RunnerClass) {
        if (startsWith(t, "def ")) {
            m_sectionIndent = indent;
            if (startsWith(t, "def call(")) {
                m_section = Section::Plan;
                m_function = "Runner.call";
                m_out.functions.push_back(m_function);
                m_guardIndex = -1;
            } else {
                m_section = Section::OtherDef;
            }
        }
        return;
    }
    topLevel(t, raw);
}

void Reader::topLevel(std::string_view t, std::string_view raw)
{
    const int indent = indentOf(raw);
    if (startsWith(t, "#")) {
        if (startsWith(t, "# AOT ID:")) {
            for (std::string id : bracketList(t.substr(9)))
                m_out.aotIds.push_back(unquote(id));
            return;
        }
        m_pendingComments.push_back(t);
        return;
    }
    std::vector<std::string_view> comments;
    comments.swap(m_pendingComments);
    if (startsWith(t, "def ")) {
        m_sectionIndent = indent;
        std::string_view rest = t.substr(4);
        const size_t open = rest.find('(');
        const std::string name(trim(rest.substr(0, open)));
        if (name == "call" || (startsWith(name, "partition_") && isIdentifier(name))) {
            m_section = Section::Plan;
            m_function = name;
            m_out.functions.push_back(name);
            m_guardIndex = -1;
        } else if (name == "get_args") {
            m_section = Section::GetArgs;
        } else {
            m_section = Section::OtherDef;
        }
        return;
    }
    if (startsWith(t, "class ")) {
        m_sectionIndent = indent;
        if (startsWith(t, "class Runner")) {
            m_inRunner = true;
            m_runnerIndent = indent;
            m_section = Section::RunnerClass;
        } else {
            m_section = Section::OtherDef;
        }
        return;
    }
    m_pendingComments.swap(comments);
    const std::string_view code = stripComment(t);
    const size_t eq = code.find(" = ");
    if (eq != std::string_view::npos) {
        const std::string_view lhs = trim(code.substr(0, eq));
        const std::string_view rhs = trim(code.substr(eq + 3));
        if (startsWith(rhs, "async_compile.") && isIdentifier(lhs)) {
            kernelStart(lhs, rhs);
            return;
        }
    }
    m_pendingComments.clear();
    if (startsWith(t, "import ") || startsWith(t, "from ") || startsWith(t, "@") || startsWith(t, "del ")
        || startsWith(t, "async_compile.") || startsWith(t, "if __name__") || startsWith(t, "with ")
        || eq != std::string_view::npos || indent > 0)
        return;
    warn("not understood at the top level: '" + std::string(t.substr(0, 80)) + "'");
}

void Reader::getArgsLine(std::string_view t)
{
    const std::string_view code = stripComment(t);
    const size_t eq = code.find(" = ");
    if (eq == std::string_view::npos)
        return; // `from ... import`, `return [...]`
    const std::string_view lhs = trim(code.substr(0, eq));
    const std::string_view rhs = trim(code.substr(eq + 3));
    if (!isIdentifier(lhs))
        return;
    if (parseInt(rhs)) {
        m_getArgsInts.insert(std::string(lhs));
        return;
    }
    std::string_view callee, inner;
    if (!splitCall(rhs, callee, inner) || callee != "rand_strided") {
        warn("get_args(): not a rand_strided(...) or integer argument: '" + std::string(t.substr(0, 80)) + "'");
        return;
    }
    const auto args = splitTopLevel(inner);
    TensorMeta meta;
    meta.device.clear();
    meta.dtype = DType::Unknown;
    if (args.size() >= 2) {
        if (auto s = parseTuple(args[0]))
            meta.shape = std::move(*s);
        if (auto s = parseTuple(args[1]))
            meta.stride = std::move(*s);
    }
    meta.device = deviceOf(keywordArg(args, "device"));
    meta.dtype = dtypeOf(keywordArg(args, "dtype"));
    m_getArgs[std::string(lhs)] = std::move(meta);
}

void Reader::planLine(std::string_view t)
{
    if (startsWith(t, "#")) {
        std::string_view body = trim(t.substr(1));
        if ((startsWith(body, "Topologically Sorted Source Nodes:") || startsWith(body, "Source Nodes:"))) {
            const size_t aten = body.find("Original ATen:");
            m_pendingSourceNodes = bracketList(body.substr(0, aten));
            m_pendingAten
                = aten == std::string_view::npos ? std::vector<std::string>() : bracketList(body.substr(aten));
        }
        return;
    }
    std::string_view comment;
    const std::string_view code = stripComment(t, &comment);
    if (code.empty())
        return;
    auto statements = splitTopLevel(code, ';');
    if (statements.empty())
        return;
    const std::string_view first = statements[0];
    const std::string_view rest = statements.size() > 1 ? code.substr(statements[1].data() - code.data()) : "";

    if (first == "pass" || first == "args.clear()" || startsWith(first, "torch.cuda.set_device(")
        || startsWith(first, "assert_alignment(") || startsWith(first, "torch.cuda.synchronize("))
        return;
    if (startsWith(first, "with ")) {
        const size_t g = first.find("_DeviceGuard(");
        if (g != std::string_view::npos) {
            if (auto idx = parseInt(first.substr(g + 13, first.find(')', g) - g - 13)))
                m_guardIndex = int(*idx);
        }
        return;
    }
    if (startsWith(first, "del ")) {
        for (std::string_view n : splitTopLevel(first.substr(4))) {
            if (!isIdentifier(n))
                continue;
            if (endsWith(n, "_args"))
                continue; // partition0_args: a list of the inputs
            m_out.plan.push_back(step(PlanStep::Kind::Free, std::string(n)));
        }
        return;
    }
    if (startsWith(first, "return")) {
        std::string_view r = trim(first.substr(6));
        PlanStep s = step(PlanStep::Kind::Return, {});
        s.uses = namesIn(r);
        m_out.plan.push_back(std::move(s));
        return;
    }
    if (startsWith(first, "assert_size_stride(")) {
        std::string_view callee, inner;
        if (!splitCall(first, callee, inner)) {
            warn("assert_size_stride(...) not closed");
            return;
        }
        const auto args = splitTopLevel(inner);
        auto sizes = args.size() >= 3 ? parseTuple(args[1]) : std::nullopt;
        auto strides = args.size() >= 3 ? parseTuple(args[2]) : std::nullopt;
        if (!sizes || !strides || sizes->size() != strides->size()) {
            warn("assert_size_stride(...) without a name, sizes and as many strides");
            return;
        }
        const std::string name(args[0]);
        auto it = m_inputIndex.find(name);
        if (it == m_inputIndex.end()) {
            // A partition checks its own arguments, which are the inputs under the same names.
            Input in;
            in.name = name;
            in.meta.device.clear();
            in.meta.dtype = DType::Unknown;
            it = m_inputIndex.emplace(name, m_out.inputs.size()).first;
            m_out.inputs.push_back(std::move(in));
            m_known.insert(name);
        }
        Input& in = m_out.inputs[it->second];
        if (!in.hasShape) {
            in.meta.shape = std::move(*sizes);
            in.meta.stride = std::move(*strides);
            in.hasShape = true;
            in.line = m_lineNo;
        }
        return;
    }
    const size_t eq = first.find(" = ");
    if (eq != std::string_view::npos) {
        if (!assignment(trim(first.substr(0, eq)), trim(first.substr(eq + 3)), rest, comment))
            warn("not understood in " + m_function + "(): '" + std::string(t.substr(0, 100)) + "'");
        return;
    }
    expression(first);
    for (size_t i = 1; i < statements.size(); ++i)
        warn("a second statement on the line is not read: '" + std::string(statements[i].substr(0, 60)) + "'");
}

bool Reader::assignment(std::string_view lhs, std::string_view rhs, std::string_view rest, std::string_view comment)
{
    if (rhs == "args") {
        defineInputs(lhs);
        return true;
    }
    if (startsWith(lhs, "stream") && startsWith(rhs, "get_") && rhs.find("stream(") != std::string_view::npos)
        return true;
    if (endsWith(lhs, "_args") && startsWith(rhs, "[")) {
        return true; // partition0_args = [arg0_1, ...]
    }
    // `(buf4,) = self.partitions[0](partition0_args)` / `buf4, = partition_0(...)`
    if (rhs.find("partitions[") != std::string_view::npos || startsWith(rhs, "partition_")) {
        PlanStep s = step(PlanStep::Kind::PartitionCall, {});
        const size_t b = rhs.find("partitions[");
        if (b != std::string_view::npos) {
            const size_t e = rhs.find(']', b);
            s.name = "partition_" + std::string(rhs.substr(b + 11, e == std::string_view::npos ? 0 : e - b - 11));
        } else {
            s.name = std::string(rhs.substr(0, rhs.find('(')));
        }
        std::string_view l = lhs;
        if (startsWith(l, "(") && endsWith(l, ")"))
            l = l.substr(1, l.size() - 2);
        for (std::string_view n : splitTopLevel(l))
            if (isIdentifier(n)) {
                s.writes.emplace_back(n);
                m_known.insert(std::string(n));
            }
        m_out.plan.push_back(std::move(s));
        return true;
    }
    if (!isIdentifier(lhs))
        return false;
    const std::string name(lhs);
    // `; del bufM  # reuse`
    std::string reusedFrom;
    if (!rest.empty()) {
        std::string_view r = trim(rest);
        if (startsWith(r, "del ") && isIdentifier(trim(r.substr(4))))
            reusedFrom = std::string(trim(r.substr(4)));
        else
            warn("a second statement on the line is not read: '" + std::string(r.substr(0, 60)) + "'");
    }
    (void)comment;

    std::string_view callee, inner;
    const bool isCall = splitCall(rhs, callee, inner);
    if (isCall && startsWith(callee, "empty_strided")) {
        const auto args = splitTopLevel(inner);
        auto sizes = args.size() >= 2 ? parseTuple(args[0]) : std::nullopt;
        auto strides = args.size() >= 2 ? parseTuple(args[1]) : std::nullopt;
        if (!sizes || !strides || sizes->size() != strides->size()) {
            warn(std::string(callee) + "(...) without sizes and as many strides");
            return true;
        }
        TensorMeta meta;
        meta.shape = std::move(*sizes);
        meta.stride = std::move(*strides);
        meta.dtype = DType::Unknown;
        std::string_view dt = keywordArg(args, "dtype");
        if (dt.empty() && args.size() >= 3 && args[2].find('=') == std::string_view::npos)
            dt = args[2];
        meta.dtype = dtypeOf(dt);
        meta.device = deviceOf(keywordArg(args, "device"));
        if (meta.device.empty())
            meta.device = allocDevice(callee);
        else if (meta.device.find(':') == std::string::npos && meta.device != "cpu" && m_guardIndex >= 0)
            meta.device += ":" + std::to_string(m_guardIndex); // `device='cuda'` under _DeviceGuard(N)
        if (meta.dtype == DType::Unknown)
            warn("allocation of " + name + " with an unknown dtype '" + std::string(dt.substr(0, 40)) + "'");
        PlanStep s = step(PlanStep::Kind::Alloc, name);
        s.bytes = storageBytes(meta);
        s.meta = meta;
        m_metaOf[name] = std::move(meta);
        m_known.insert(name);
        m_out.plan.push_back(std::move(s));
        return true;
    }
    if ((isCall && (callee == "reinterpret_tensor" || callee == "alloc_from_pool")) || isIdentifier(rhs)) {
        std::string source;
        std::optional<TensorMeta> meta;
        if (isIdentifier(rhs)) {
            source = std::string(rhs);
            if (auto it = m_metaOf.find(source); it != m_metaOf.end())
                meta = it->second;
        } else {
            const auto args = splitTopLevel(inner);
            if (args.empty() || !isIdentifier(args[0]))
                return false;
            source = std::string(args[0]);
            if (callee == "reinterpret_tensor" && args.size() >= 3) {
                auto sizes = parseTuple(args[1]);
                auto strides = parseTuple(args[2]);
                if (sizes && strides && sizes->size() == strides->size()) {
                    TensorMeta m;
                    if (auto it = m_metaOf.find(source); it != m_metaOf.end()) {
                        m.dtype = it->second.dtype;
                        m.device = it->second.device;
                    } else {
                        m.dtype = DType::Unknown;
                        m.device.clear();
                    }
                    m.shape = std::move(*sizes);
                    m.stride = std::move(*strides);
                    if (args.size() >= 4)
                        m.storageOffset = parseInt(args[3]).value_or(0);
                    meta = std::move(m);
                }
            }
        }
        const bool reuse = !reusedFrom.empty() && reusedFrom == source;
        if (!reusedFrom.empty() && !reuse)
            warn("'del " + reusedFrom + "' after a view of " + source + ": read as a free");
        PlanStep s = step(reuse ? PlanStep::Kind::Reuse : PlanStep::Kind::View, name);
        s.source = source;
        s.meta = meta;
        if (meta)
            m_metaOf[name] = *meta;
        m_known.insert(name);
        m_out.plan.push_back(std::move(s));
        if (!reusedFrom.empty() && !reuse)
            m_out.plan.push_back(step(PlanStep::Kind::Free, reusedFrom));
        return true;
    }
    if (isCall) {
        // `buf3 = extern_kernels.convolution(...)`, `buf5 = torch.ops.aten.index.Tensor(...)`: a
        // result the callee allocates.
        PlanStep s = step(PlanStep::Kind::Extern, std::string(callee));
        s.uses = namesIn(inner);
        s.writes.push_back(name);
        s.sourceNodes = std::move(m_pendingSourceNodes);
        s.originalAten = std::move(m_pendingAten);
        m_pendingSourceNodes.clear();
        m_pendingAten.clear();
        m_known.insert(name);
        m_out.plan.push_back(std::move(s));
        return true;
    }
    if (parseInt(rhs) || startsWith(rhs, "arg") || rhs.find(".size(") != std::string_view::npos)
        return true; // a symbol's value: `s0 = arg0_1`
    return false;
}

void Reader::expression(std::string_view t)
{
    std::string_view callee, inner;
    if (!splitCall(t, callee, inner)) {
        warn("not understood in " + m_function + "(): '" + std::string(t.substr(0, 100)) + "'");
        return;
    }
    const auto args = splitTopLevel(inner);
    std::string kernelName(callee);
    if (endsWith(kernelName, ".run"))
        kernelName.resize(kernelName.size() - 4);
    auto k = m_kernelIndexOf.find(kernelName);
    if (k != m_kernelIndexOf.end()) {
        Kernel& kernel = m_out.kernels[k->second];
        ++kernel.launches;
        PlanStep s = step(PlanStep::Kind::Launch, kernel.name);
        size_t position = 0;
        std::set<std::string> used, written; // sets: a line with many arguments stays linear
        for (std::string_view a : args) {
            const bool keyword = a.find('=') != std::string_view::npos && isIdentifier(trim(a.substr(0, a.find('='))));
            if (keyword)
                continue;
            auto names = namesIn(a);
            for (const std::string& n : names) {
                if (used.insert(n).second)
                    s.uses.push_back(n);
                if (position < kernel.parameters.size()
                    && (startsWith(kernel.parameters[position], "out_ptr")
                        || startsWith(kernel.parameters[position], "in_out_ptr"))
                    && written.insert(n).second)
                    s.writes.push_back(n);
            }
            ++position;
        }
        s.sourceNodes = std::move(m_pendingSourceNodes);
        s.originalAten = std::move(m_pendingAten);
        m_pendingSourceNodes.clear();
        m_pendingAten.clear();
        m_out.plan.push_back(std::move(s));
        return;
    }
    const bool externKernel = startsWith(callee, "extern_kernels.") || startsWith(callee, "torch.ops.")
        || startsWith(callee, "aten.") || startsWith(callee, "torch.");
    const size_t dot = callee.find('.');
    const bool method = dot != std::string_view::npos && m_known.count(std::string(callee.substr(0, dot)));
    if (!externKernel && !method) {
        if (endsWith(callee, ".run") || startsWith(callee, "triton_") || startsWith(callee, "cpp_"))
            warn("launch of kernel '" + kernelName + "', which the file does not compile");
        else
            warn("not understood in " + m_function + "(): '" + std::string(t.substr(0, 100)) + "'");
        return;
    }
    PlanStep s = step(PlanStep::Kind::Extern, std::string(callee));
    std::set<std::string> used;
    for (std::string_view a : args) {
        for (const std::string& n : namesIn(a))
            if (used.insert(n).second)
                s.uses.push_back(n);
    }
    if (method) {
        const std::string self(callee.substr(0, dot));
        s.uses.insert(s.uses.begin(), self);
        if (endsWith(callee, "_"))
            s.writes.push_back(self);
    }
    for (std::string_view out : { std::string_view("out"), std::string_view("output") })
        for (const std::string& n : namesIn(keywordArg(args, out)))
            s.writes.push_back(n);
    s.sourceNodes = std::move(m_pendingSourceNodes);
    s.originalAten = std::move(m_pendingAten);
    m_pendingSourceNodes.clear();
    m_pendingAten.clear();
    m_out.plan.push_back(std::move(s));
}

void Reader::finish()
{
    // Inputs: dtype and device from get_args() first, the kernels' graph fragments next.
    for (Input& in : m_out.inputs) {
        if (m_getArgsInts.count(in.name)) {
            in.symInt = true;
            continue;
        }
        if (auto it = m_getArgs.find(in.name); it != m_getArgs.end()) {
            if (it->second.dtype != DType::Unknown) {
                in.meta.dtype = it->second.dtype;
                in.hasDtype = true;
            }
            if (!it->second.device.empty())
                in.meta.device = it->second.device;
            if (!in.hasShape && !it->second.shape.empty()) {
                in.meta.shape = it->second.shape;
                in.meta.stride = it->second.stride;
                in.hasShape = true;
            }
        }
        if (auto it = m_fragmentMeta.find(in.name); it != m_fragmentMeta.end()) {
            if (!in.hasDtype && it->second.first != DType::Unknown) {
                in.meta.dtype = it->second.first;
                in.hasDtype = true;
            }
            if (in.meta.device.empty())
                in.meta.device = it->second.second;
        }
        if (!in.hasShape)
            warn("input " + in.name + ": no assert_size_stride or get_args() line gives its sizes");
    }
    detail::summarizePlan(m_out);
    if (auto failed = detail::buildPlanGraph(m_out))
        warn("the plan does not make a graph: " + *failed, 0);
}

} // namespace

const Kernel* OutputCode::kernel(const std::string& name) const
{
    for (const Kernel& k : kernels)
        if (k.name == name)
            return &k;
    return nullptr;
}

std::optional<uint64_t> storageBytes(const TensorMeta& meta)
{
    const uint64_t item = dtypeSize(meta.dtype);
    if (item == 0 || meta.stride.size() != meta.shape.size())
        return std::nullopt;
    uint64_t extent = 1;
    for (size_t i = 0; i < meta.shape.size(); ++i) {
        auto size = meta.shape[i].constantValue();
        auto stride = meta.stride[i].constantValue();
        if (!size || !stride || *size < 0 || *stride < 0)
            return std::nullopt;
        if (*size == 0)
            return 0;
        const uint64_t add = uint64_t(*size - 1) * uint64_t(*stride);
        if (*stride != 0 && add / uint64_t(*stride) != uint64_t(*size - 1))
            return std::nullopt;
        extent += add;
        if (extent > (uint64_t(1) << 56))
            return std::nullopt;
    }
    return (extent + uint64_t(std::max<int64_t>(meta.storageOffset, 0))) * item;
}

bool looksLikeInductorOutputCode(std::string_view head)
{
    if (startsWith(head, "# AOT ID:"))
        return true;
    // TorchAir's own module imports torchair; Inductor's imports torch._inductor.
    if (head.find("torchair") != std::string_view::npos)
        return false;
    const bool imports = head.find("from torch._inductor") != std::string_view::npos;
    const bool shape = head.find("async_compile") != std::string_view::npos
        || head.find("def call(args)") != std::string_view::npos || head.find("class Runner") != std::string_view::npos;
    return imports && shape;
}

Result<OutputCode> readInductorOutputCode(std::string_view text, const std::string& path)
{
    if (trim(text).empty())
        return makeError(ErrorCode::ParseError, "empty file: no Inductor output code", path);
    Reader reader(text, path);
    return reader.run();
}

Result<OutputCode> readInductorOutputCodeFile(const std::string& path)
{
    auto text = readTextFile(path, kMaxFileBytes, "Inductor output code files"); // refuses FIFOs and devices unopened
    if (!text)
        return text.error();
    return readInductorOutputCode(text.value(), path);
}

} // namespace engine::readers::inductor
