// readTorchairModule: TorchAir's generated module (AclConcreteGraph.codegen(), reference §2.1 step 7),
// read without executing it. The forward is rewritten, line for line, into the readable FX code
// readFxCode already understands (so positions in its diagnostics stay those of the file), and the
// module-level literals (compile_configs, AclGraphCacheInfo, main's example inputs) classify and
// annotate its placeholders.
#include "engine/readers/torchair_module.h"

#include "engine/core/file_io.h"
#include "engine/readers/fx_code_builder.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>

namespace engine::readers {

namespace {

using detail::Expr;
using detail::ExprParser;
using detail::LineScanner;
using detail::LogicalLine;
using detail::Position;
using detail::Token;

constexpr uint64_t kMaxModuleBytes = uint64_t(256) << 20;

bool isOp(const Token& t, std::string_view op)
{
    return t.kind == Token::Kind::Op && t.text == op;
}

bool isName(const Token& t, std::string_view name)
{
    return t.kind == Token::Kind::Name && !t.percent && t.text == name;
}

/// Tokens of a line without its comments (ExprParser positions index into this).
std::vector<Token> codeTokens(const LogicalLine& line)
{
    std::vector<Token> out;
    out.reserve(line.tokens.size());
    for (const Token& t : line.tokens)
        if (t.kind != Token::Kind::Comment)
            out.push_back(t);
    return out;
}

/// Positions of the `=` tokens outside brackets (chained assignment gives several).
std::vector<size_t> topLevelEquals(const std::vector<Token>& toks)
{
    std::vector<size_t> out;
    detail::forEachTopLevelOp(toks, 0, toks.size(), [&](size_t i, const Token& t) {
        if (t.text == "=")
            out.push_back(i);
    });
    return out;
}

/// `value` of a one-target assignment `name = value`, parsed; nullopt if the line is not one.
struct Assignment {
    std::string target; ///< a plain name, or empty when the target is something else
    std::vector<Token> tokens;
    size_t valueBegin = 0;
    std::optional<Expr> targetExpr;
    std::optional<Expr> value;
    std::string error;
    size_t errorOffset = 0;
};

Assignment parseAssignment(const LogicalLine& line)
{
    Assignment a;
    a.tokens = codeTokens(line);
    auto eq = topLevelEquals(a.tokens);
    if (eq.size() != 1)
        return a;
    ExprParser tp(a.tokens, 0, eq[0]);
    a.targetExpr = tp.expressionList();
    if (!a.targetExpr || !tp.atEnd()) {
        a.targetExpr.reset();
        return a;
    }
    if (a.targetExpr->kind == Expr::Kind::Name)
        a.target = a.targetExpr->text;
    a.valueBegin = eq[0] + 1;
    ExprParser vp(a.tokens, a.valueBegin, a.tokens.size());
    a.value = vp.expressionList();
    if (a.value && !vp.atEnd())
        vp.fail("unexpected text after the value");
    if (vp.failed()) {
        a.value.reset();
        a.error = vp.error();
        a.errorOffset = vp.errorOffset();
    }
    return a;
}

std::string sourceText(std::string_view text, const Expr& e)
{
    return std::string(text.substr(e.begin, e.end - e.begin));
}

std::optional<int64_t> intValue(const Expr& e)
{
    if (e.kind == Expr::Kind::Int && e.u <= uint64_t(INT64_MAX))
        return int64_t(e.u);
    if (e.kind == Expr::Kind::Unary && e.text == "-" && e.kids.size() == 1 && e.kids[0].kind == Expr::Kind::Int
        && e.kids[0].u <= uint64_t(INT64_MAX))
        return -int64_t(e.kids[0].u);
    return std::nullopt;
}

/// Where the example input of one placeholder comes from (main() or kernel's assert_size_stride).
struct ExampleInput {
    bool tensor = false;
    std::vector<std::string> shape, stride; ///< expression texts
    std::string dtype; ///< "torch.float32"; empty when unknown (assert_size_stride only)
    std::string device;
    std::string symValue; ///< SymInt: the expression it carries ("s0", "2*s0"), once known
    std::optional<int64_t> example; ///< SymInt: main()'s example value
};

class ModuleReader {
public:
    ModuleReader(std::string_view text, const std::string& path, const Graph* annotated)
        : m_text(text)
        , m_path(path)
        , m_annotated(annotated)
        , m_sink(path, m_result.diagnostics)
    {
    }

    Result<TorchairModule> read()
    {
        LineScanner scanner(m_text);
        LogicalLine line;
        while (scanner.next(line)) {
            m_lastLine = std::max(m_lastLine, line.lastLine);
            handle(line);
        }
        if (m_forwardLine == 0)
            return m_sink.error({ 1, 1 },
                "no 'def forward(*args, ...)' found: this is not TorchAir's generated module (output_code.py / "
                "py_code)");
        detectBackend();
        auto graph = buildGraph();
        if (!graph)
            return graph.error();
        m_result.graph = std::move(graph.value());
        classify();
        mergeAnnotations();
        convertConfigs();
        m_sink.finish();
        return std::move(m_result);
    }

private:
    enum class Section { Top, Forward, Kernel, Main, OtherDef };

    Position pos(const LogicalLine& line, size_t offset) const
    {
        return detail::locate(m_text, line.line, line.lineStart, offset);
    }

    void warn(const LogicalLine& line, size_t offset, const std::string& message)
    {
        if (m_sink.full()) {
            m_sink.drop();
            return;
        }
        m_sink.warn(pos(line, offset), message);
    }

    void handle(const LogicalLine& line)
    {
        const bool code = line.kind == LogicalLine::Kind::Code || line.kind == LogicalLine::Kind::Class;
        if (code && line.indent == 0) {
            // A statement at column 0 ends any def.
            m_section = Section::Top;
        }
        if (m_section == Section::Forward) {
            m_forwardLines.push_back(line);
            return;
        }
        if (line.kind != LogicalLine::Kind::Code || !line.problem.empty() || line.tokens.empty())
            return;
        if (m_section == Section::Kernel) {
            kernelLine(line);
            return;
        }
        if (m_section == Section::Main) {
            mainLine(line);
            return;
        }
        if (m_section == Section::OtherDef)
            return;
        topLine(line);
    }

    void topLine(const LogicalLine& line)
    {
        const Token& first = line.tokens.front();
        if (isName(first, "def")) {
            const std::string name = line.tokens.size() > 1 ? std::string(line.tokens[1].text) : "";
            if (name == "forward") {
                if (m_forwardLine != 0) {
                    warn(line, line.begin, "a second 'def forward' is ignored");
                    m_section = Section::OtherDef;
                    return;
                }
                m_forwardLine = line.line;
                m_section = Section::Forward;
            } else if (name == "kernel") {
                m_section = Section::Kernel;
            } else if (name == "main") {
                m_section = Section::Main;
            } else {
                m_section = Section::OtherDef;
            }
            return;
        }
        if (isName(first, "from") || isName(first, "import")) {
            for (const Token& t : line.tokens) {
                if (t.kind != Token::Kind::Name)
                    continue;
                if (t.text.rfind("npugraph_ex", 0) == 0)
                    m_importsNpugraphEx = true;
                else if (t.text.rfind("torchair", 0) == 0)
                    m_importsTorchair = true;
            }
            return;
        }
        Assignment a = parseAssignment(line);
        if (!a.targetExpr)
            return;
        if (a.targetExpr->kind == Expr::Kind::Subscript && a.targetExpr->kids.size() == 2
            && a.targetExpr->kids[0].kind == Expr::Kind::Name && a.targetExpr->kids[0].text == "compile_configs") {
            compileConfig(line, a);
            return;
        }
        if (a.target == "aclgraph_cache_info") {
            if (!a.value) {
                warn(line, a.errorOffset, "cannot read AclGraphCacheInfo(...): " + a.error);
                return;
            }
            cacheInfo(line, *a.value);
            return;
        }
        if (a.target == "serialized_gm")
            m_result.hasSerializedGraph = true;
    }

    void compileConfig(const LogicalLine& line, const Assignment& a)
    {
        const Expr& key = a.targetExpr->kids[1];
        if (key.kind != Expr::Kind::Str || !a.value) {
            warn(line, line.begin, "cannot read this compile_configs entry; it is skipped");
            return;
        }
        std::string value;
        if (a.value->kind == Expr::Kind::Str)
            value = a.value->text;
        else
            value = sourceText(m_text, *a.value); // npugraph_ex may keep bools as bools
        for (auto& kv : m_result.compileConfigs)
            if (kv.first == key.text) {
                kv.second = value;
                return;
            }
        m_result.compileConfigs.emplace_back(key.text, value);
        m_configLine.emplace(key.text, std::make_pair(line.line, line.lineStart));
        m_configOffset.emplace(key.text, a.value->begin);
    }

    // --- AclGraphCacheInfo(...) --------------------------------------------------------------

    void cacheInfo(const LogicalLine& line, const Expr& call)
    {
        if (call.kind != Expr::Kind::Call || call.kids.empty()
            || detail::dottedName(call.kids[0]).value_or("") != "AclGraphCacheInfo") {
            warn(line, call.begin, "aclgraph_cache_info is not an AclGraphCacheInfo(...) call; it is ignored");
            return;
        }
        m_result.hasCacheInfo = true;
        AclGraphCacheInfo& info = m_result.cacheInfo;
        const size_t first = 1 + call.positionalCount();
        for (size_t k = 0; k < call.keywords.size(); ++k) {
            const std::string& key = call.keywords[k];
            const Expr& v = call.kids[first + k];
            info.fields.push_back(key);
            if (!cacheField(info, key, v))
                warn(line, v.begin,
                    "cannot read AclGraphCacheInfo field '" + key + "' (" + detail::shortText(sourceText(m_text, v))
                        + "); it is ignored");
        }
    }

    bool intList(const Expr& v, std::vector<int>& out)
    {
        if (v.kind != Expr::Kind::List && v.kind != Expr::Kind::Tuple)
            return false;
        for (const Expr& e : v.kids) {
            auto i = intValue(e);
            if (!i || *i < INT32_MIN || *i > INT32_MAX)
                return false;
            out.push_back(int(*i));
        }
        return true;
    }

    bool strList(const Expr& v, std::vector<std::string>& out)
    {
        // set() is how Python prints an empty set, {'a', 'b'} a full one; lists and tuples too.
        if (v.kind == Expr::Kind::Call && v.kids.size() == 1 && detail::dottedName(v.kids[0]).value_or("") == "set")
            return true;
        if (v.kind != Expr::Kind::List && v.kind != Expr::Kind::Tuple && v.kind != Expr::Kind::Set)
            return false;
        for (const Expr& e : v.kids) {
            if (e.kind != Expr::Kind::Str)
                return false;
            out.push_back(e.text);
        }
        return true;
    }

    bool cacheField(AclGraphCacheInfo& info, const std::string& key, const Expr& v)
    {
        if (key == "pool") {
            if (v.kind == Expr::Kind::Name && v.text == "None")
                return true;
            if (v.kind != Expr::Kind::Tuple || v.kids.size() != 2)
                return false;
            auto a = intValue(v.kids[0]), b = intValue(v.kids[1]);
            if (!a || !b || *a < 0 || *b < 0)
                return false;
            info.pool = std::make_pair(uint64_t(*a), uint64_t(*b));
            return true;
        }
        if (key == "stream") {
            info.stream = sourceText(m_text, v);
            return true;
        }
        if (key == "capture_error_mode") {
            if (v.kind != Expr::Kind::Str)
                return false;
            info.captureErrorMode = v.text;
            return true;
        }
        if (key == "num_warmup_iters") {
            auto i = intValue(v);
            if (!i)
                return false;
            info.numWarmupIters = *i;
            return true;
        }
        if (key == "fx_graph_name") {
            if (v.kind != Expr::Kind::Str)
                return false;
            info.fxGraphName = v.text;
            return true;
        }
        if (key == "user_inputs_mapping") {
            // OrderedDict([('arg0_1', 0), ...]), OrderedDict() or a plain dict literal.
            const Expr* items = nullptr;
            if (v.kind == Expr::Kind::Call && v.kids.size() <= 2
                && detail::dottedName(v.kids[0]).value_or("") == "OrderedDict" && v.keywords.empty()) {
                if (v.kids.size() == 1)
                    return true;
                items = &v.kids[1];
            }
            if (v.kind == Expr::Kind::Dict) {
                for (size_t i = 0; i + 1 < v.kids.size(); i += 2) {
                    auto idx = intValue(v.kids[i + 1]);
                    if (v.kids[i].kind != Expr::Kind::Str || !idx)
                        return false;
                    info.userInputsMapping.emplace_back(v.kids[i].text, int(*idx));
                }
                return true;
            }
            if (!items || (items->kind != Expr::Kind::List && items->kind != Expr::Kind::Tuple))
                return false;
            for (const Expr& pair : items->kids) {
                if (pair.kind != Expr::Kind::Tuple || pair.kids.size() != 2 || pair.kids[0].kind != Expr::Kind::Str)
                    return false;
                auto idx = intValue(pair.kids[1]);
                if (!idx)
                    return false;
                info.userInputsMapping.emplace_back(pair.kids[0].text, int(*idx));
            }
            return true;
        }
        if (key == "unupdated_sym_input_index") {
            if (v.kind != Expr::Kind::List && v.kind != Expr::Kind::Tuple)
                return false;
            for (const Expr& e : v.kids) {
                // (index, is_sym) as TorchAir writes it; a bare index is taken as a SymInt's.
                const Expr* index = &e;
                bool isSym = true;
                if (e.kind == Expr::Kind::Tuple) {
                    if (e.kids.size() != 2 || e.kids[1].kind != Expr::Kind::Name
                        || (e.kids[1].text != "True" && e.kids[1].text != "False"))
                        return false;
                    index = &e.kids[0];
                    isSym = e.kids[1].text == "True";
                }
                auto i = intValue(*index);
                if (!i || *i < 0 || *i > INT32_MAX)
                    return false;
                info.unupdatedSymInputIndex.emplace_back(int(*i), isSym);
            }
            return true;
        }
        if (key == "parameter_user_inputs")
            return intList(v, info.parameterUserInputs);
        if (key == "updated_ops_param") {
            info.updatedOpsParam = sourceText(m_text, v);
            return true;
        }
        if (key == "ops_update_rulers") {
            info.opsUpdateRulers = sourceText(m_text, v);
            return true;
        }
        if (key == "mutated_user_inputs")
            return strList(v, info.mutatedUserInputs);
        if (key == "tagged_event_names")
            return strList(v, info.taggedEventNames);
        if (key == "user_stream_label")
            return strList(v, info.userStreamLabel);
        if (key == "user_stream_info")
            return true; // a dict of stream objects; nothing the simulator models
        if (key == "userinput_ref_with_output") {
            if (v.kind != Expr::Kind::Dict)
                return false;
            for (size_t i = 0; i + 1 < v.kids.size(); i += 2) {
                auto idx = intValue(v.kids[i]);
                std::vector<int> outs;
                if (!idx || !intList(v.kids[i + 1], outs))
                    return false;
                info.userinputRefWithOutput[int(*idx)] = std::move(outs);
            }
            return true;
        }
        return true; // a field this version does not know: listed in `fields`, value not kept
    }

    // --- kernel() and main(): the example inputs -------------------------------------------

    void unpackNames(const Assignment& a, std::vector<std::string>& out)
    {
        if (!a.targetExpr || !a.value || a.value->kind != Expr::Kind::Name || a.value->text != "args")
            return;
        out.clear();
        if (a.targetExpr->kind == Expr::Kind::Name) {
            out.push_back(a.targetExpr->text);
            return;
        }
        if (a.targetExpr->kind != Expr::Kind::Tuple)
            return;
        for (const Expr& e : a.targetExpr->kids)
            if (e.kind == Expr::Kind::Name)
                out.push_back(e.text);
    }

    void kernelLine(const LogicalLine& line)
    {
        Assignment a = parseAssignment(line);
        if (a.targetExpr) {
            // `s0 = arg0_1`: the symbol a SymInt placeholder carries.
            if (!a.target.empty() && a.value && a.value->kind == Expr::Kind::Name && a.value->text != "args")
                m_kernelSymbols[a.value->text] = a.target;
            return;
        }
        auto toks = codeTokens(line);
        ExprParser ep(toks, 0, toks.size());
        auto e = ep.expression();
        if (!e || e->kind != Expr::Kind::Call || e->kids.size() != 4
            || detail::dottedName(e->kids[0]).value_or("") != "assert_size_stride")
            return;
        const Expr& target = e->kids[1];
        if (target.kind != Expr::Kind::Subscript || target.kids.size() != 2)
            return;
        auto idx = intValue(target.kids[1]);
        if (!idx || *idx < 0 || *idx > (1 << 24))
            return;
        ExampleInput in;
        in.tensor = true;
        if (!dims(e->kids[2], in.shape) || !dims(e->kids[3], in.stride)) {
            warn(line, e->begin, "cannot read the sizes in this assert_size_stride; it is ignored");
            return;
        }
        m_asserted[int(*idx)] = std::move(in);
    }

    bool dims(const Expr& e, std::vector<std::string>& out)
    {
        if (e.kind != Expr::Kind::Tuple && e.kind != Expr::Kind::List)
            return false;
        for (const Expr& d : e.kids)
            out.push_back(detail::exprText(d));
        return true;
    }

    void mainLine(const LogicalLine& line)
    {
        Assignment a = parseAssignment(line);
        if (a.target.empty() || !a.value)
            return;
        const Expr& v = *a.value;
        if (v.kind == Expr::Kind::Call && !v.kids.empty()
            && detail::dottedName(v.kids[0]).value_or("") == "rand_strided") {
            ExampleInput in;
            in.tensor = true;
            const size_t npos = v.positionalCount();
            bool ok = npos >= 2 && dims(v.kids[1], in.shape) && dims(v.kids[2], in.stride);
            for (size_t k = 0; k < v.keywords.size(); ++k) {
                const Expr& kv = v.kids[1 + npos + k];
                if (v.keywords[k] == "device")
                    in.device = kv.kind == Expr::Kind::Str ? kv.text : detail::exprText(kv);
                else if (v.keywords[k] == "dtype")
                    in.dtype = detail::exprText(kv);
            }
            if (!ok) {
                warn(line, v.begin, "cannot read the sizes of this rand_strided(...); the input gets no metadata");
                return;
            }
            m_main[a.target] = std::move(in);
            return;
        }
        if (v.kind == Expr::Kind::Name && m_main.count(v.text) && !m_main[v.text].tensor) {
            // `s0 = arg0_1` after `arg0_1 = 2`: arg0_1 carries the symbol s0.
            m_main[v.text].symValue = a.target;
            return;
        }
        if (m_main.count(a.target))
            return;
        ExampleInput in;
        if (auto i = intValue(v))
            in.example = *i;
        else
            in.symValue = detail::exprText(v); // a SymInt placeholder carrying an expression
        m_main[a.target] = std::move(in);
    }

    // --- the forward -------------------------------------------------------------------------

    /// `name = torch.ops.x.y(*(a, b), **{'k': v})` as the replay-update codegen prints a node, in the
    /// ordinary call form `name = torch.ops.x.y(a, b, k=v)`; empty if the line is not of that form.
    std::string starCallText(const LogicalLine& line)
    {
        auto toks = codeTokens(line);
        auto eq = topLevelEquals(toks);
        if (eq.size() != 1 || eq[0] + 1 >= toks.size())
            return {};
        size_t i = eq[0] + 1;
        while (i < toks.size() && !isOp(toks[i], "("))
            ++i;
        if (i + 2 >= toks.size() || !isOp(toks[i + 1], "*"))
            return {};
        const size_t calleeEnd = i;
        ExprParser callee(toks, eq[0] + 1, calleeEnd);
        auto calleeExpr = callee.expression();
        ExprParser ap(toks, i + 2, toks.size());
        auto args = ap.expression();
        if (!calleeExpr || !callee.atEnd() || !args || args->kind != Expr::Kind::Tuple)
            return {};
        std::optional<Expr> kwargs;
        if (ap.acceptOp(",")) {
            if (!ap.acceptOp("**"))
                return {};
            kwargs = ap.expression();
            if (!kwargs || kwargs->kind != Expr::Kind::Dict)
                return {};
        }
        if (!ap.acceptOp(")") || !ap.atEnd())
            return {};
        std::string out(m_text.substr(line.begin, toks[eq[0]].offset - line.begin));
        out += "= " + sourceText(m_text, *calleeExpr) + "(";
        bool firstArg = true;
        for (const Expr& e : args->kids) {
            out += firstArg ? "" : ", ";
            out += detail::exprText(e);
            firstArg = false;
        }
        if (kwargs)
            for (size_t k = 0; k + 1 < kwargs->kids.size(); k += 2) {
                if (kwargs->kids[k].kind != Expr::Kind::Str || !detail::isIdentifier(kwargs->kids[k].text))
                    return {};
                out += firstArg ? "" : ", ";
                out += kwargs->kids[k].text + " = " + detail::exprText(kwargs->kids[k + 1]);
                firstArg = false;
            }
        return out + ")";
    }

    static bool isNoneTail(const std::vector<Token>& toks)
    {
        // `a = b = None`: names and '=' alternating, ending in None.
        if (toks.size() < 3 || !isName(toks.back(), "None"))
            return false;
        for (size_t i = 0; i + 1 < toks.size(); ++i)
            if ((i % 2 == 0) ? toks[i].kind != Token::Kind::Name : !isOp(toks[i], "="))
                return false;
        return true;
    }

    /// The forward, rewritten into readable FX code with the same line numbers.
    std::string normalizedForward()
    {
        const int total = std::max(m_lastLine, m_forwardLine);
        std::vector<std::string> out(size_t(total) + 1);
        std::vector<bool> covered(size_t(total) + 1, false);
        auto put = [&](const LogicalLine& l, std::string text) {
            out[size_t(l.line)] = std::move(text);
            for (int k = l.line + 1; k <= l.lastLine && k <= total; ++k)
                covered[size_t(k)] = true; // the text above carries these lines' newlines
        };
        auto lineText = [&](const LogicalLine& l) { return std::string(m_text.substr(l.begin, l.end - l.begin)); };

        int skipDeeperThan = -1; // inside an `if is_capturing:` block: lines indented deeper are skipped
        int lastNodeLine = -1; // the replay-update node line the following `x = None` belongs to
        for (const LogicalLine& l : m_forwardLines) {
            if (l.kind == LogicalLine::Kind::Blank)
                continue;
            if (!l.problem.empty()) {
                put(l, "    " + lineText(l)); // readFxCode reports it at its place
                continue;
            }
            if (l.kind == LogicalLine::Kind::Comment) {
                if (skipDeeperThan < 0 || l.indent <= skipDeeperThan)
                    put(l, "    " + lineText(l));
                continue;
            }
            if (skipDeeperThan >= 0) {
                if (l.indent > skipDeeperThan)
                    continue;
                skipDeeperThan = -1;
            }
            if (l.line == m_forwardLine)
                continue; // the header is written last, once the inputs are known
            auto toks = codeTokens(l);
            if (toks.empty()) {
                put(l, "    " + lineText(l));
                continue;
            }
            const Token& first = toks.front();
            if (isName(first, "if") && toks.size() >= 3 && isName(toks[1], "is_capturing") && isOp(toks.back(), ":")) {
                skipDeeperThan = l.indent;
                continue;
            }
            if (isName(first, "from") || isName(first, "import") || isName(first, "global"))
                continue;
            if (isName(first, "with") && isOp(toks.back(), ":"))
                continue; // a user stream scope: its body is read as if unscoped
            Assignment a = parseAssignment(l);
            if (!m_unpacked && a.targetExpr && a.value && a.value->kind == Expr::Kind::Name
                && a.value->text == "args") {
                unpackNames(a, m_forwardNames);
                m_unpacked = true;
                continue;
            }
            // event_<record> = torch.npu.Event() stands for the air.record node <record>.
            if (a.target.rfind("event_", 0) == 0 && a.value && a.value->kind == Expr::Kind::Call
                && detail::dottedName(a.value->kids[0]).value_or("") == "torch.npu.Event") {
                put(l, "    " + a.target.substr(6) + " = torch.ops.air.record.default()");
                continue;
            }
            if (!a.targetExpr && toks.size() >= 3 && toks[0].kind == Token::Kind::Name
                && toks[0].text.rfind("event_", 0) == 0 && isOp(toks[1], "."))
                continue; // event_x.record(...) / event_x.wait(...)
            // `_tensor_constant0 = tensor_constants['_tensor_constant0']` is FX's get_attr.
            if (!a.target.empty() && a.value && a.value->kind == Expr::Kind::Subscript
                && a.value->kids[0].kind == Expr::Kind::Name && a.value->kids[0].text == "tensor_constants"
                && a.value->kids[1].kind == Expr::Kind::Str) {
                m_result.tensorConstants.push_back(a.value->kids[1].text);
                put(l, "    " + a.target + " = self." + a.value->kids[1].text);
                continue;
            }
            if (isNoneTail(toks) && lastNodeLine >= 0) {
                // The free list TorchAir moved out of a replay-update node's line: put it back.
                out[size_t(lastNodeLine)] += ";  " + lineText(l);
                lastNodeLine = -1;
                continue;
            }
            std::string star = starCallText(l);
            if (!star.empty()) {
                put(l, "    " + star);
                m_result.updatedNodes.push_back(a.target);
                lastNodeLine = l.line;
                continue;
            }
            lastNodeLine = -1;
            put(l, "    " + lineText(l));
        }

        // The header, with main()'s (or kernel's) example inputs as annotations.
        std::string header = "def forward(self";
        for (size_t i = 0; i < m_forwardNames.size(); ++i) {
            header += ", " + m_forwardNames[i];
            std::string ann = annotationFor(m_forwardNames[i], int(i));
            if (!ann.empty())
                header += ": " + detail::pyQuote(ann, '"');
        }
        header += "):";
        out[size_t(m_forwardLine)] = header;

        std::string text;
        for (int k = 1; k <= total; ++k) {
            if (covered[size_t(k)])
                continue;
            text += out[size_t(k)];
            text += '\n';
        }
        return text;
    }

    std::string annotationFor(const std::string& name, int index)
    {
        const ExampleInput* in = nullptr;
        if (auto it = m_main.find(name); it != m_main.end())
            in = &it->second;
        else if (auto at = m_asserted.find(index); at != m_asserted.end())
            in = &at->second;
        if (!in) {
            if (auto ks = m_kernelSymbols.find(name); ks != m_kernelSymbols.end())
                return "Sym(" + ks->second + ")";
            return {};
        }
        if (!in->tensor) {
            std::string sym = in->symValue;
            if (sym.empty())
                if (auto ks = m_kernelSymbols.find(name); ks != m_kernelSymbols.end())
                    sym = ks->second;
            if (sym.empty() && in->example)
                sym = std::to_string(*in->example);
            return sym.empty() ? std::string() : "Sym(" + sym + ")";
        }
        DType dt = in->dtype.empty() ? DType::Unknown : parseDType(in->dtype);
        if (in->dtype.empty())
            m_untypedInputs.push_back(name);
        std::string ann = dtypeShortName(dt) + "[";
        for (size_t k = 0; k < in->shape.size(); ++k)
            ann += (k ? ", " : "") + in->shape[k];
        ann += "][";
        for (size_t k = 0; k < in->stride.size(); ++k)
            ann += (k ? ", " : "") + in->stride[k];
        ann += "]" + (in->device.empty() ? std::string("npu:0") : in->device);
        return ann;
    }

    Result<Graph> buildGraph()
    {
        std::string normalized = normalizedForward();
        auto read = readFxCode(normalized, m_path);
        if (!read)
            return read.error();
        for (auto& d : read->diagnostics)
            m_result.diagnostics.push_back(std::move(d));
        if (read->graphs.empty())
            return makeError(ErrorCode::ParseError, "the forward holds no graph", m_path);
        Graph g = std::move(read->graphs.front());
        g.id = m_result.cacheInfo.fxGraphName.empty() ? "forward" : m_result.cacheInfo.fxGraphName;
        if (!m_untypedInputs.empty())
            m_sink.warn({ m_forwardLine, 1 },
                "no main() gives the dtype of " + std::to_string(m_untypedInputs.size())
                    + " input(s) (first: " + m_untypedInputs.front()
                    + "); their sizes come from kernel's assert_size_stride and their memory is not counted");
        return g;
    }

    void detectBackend()
    {
        bool npu = m_importsNpugraphEx && !m_importsTorchair;
        if (!m_importsNpugraphEx && !m_importsTorchair)
            for (const auto& kv : m_result.compileConfigs)
                if (kv.first == "force_eager" || kv.first == "capture_limit" || kv.first == "clone_output"
                    || kv.first == "reuse_graph_pool_in_same_fx" || kv.first == "force_recapture")
                    npu = true;
        m_result.backend = npu ? config::Backend::NpugraphEx : config::Backend::TorchAir;
    }

    // --- classification and metadata ------------------------------------------------------

    void classify()
    {
        Graph& g = m_result.graph;
        const std::vector<int> ph = g.placeholders();
        if (!m_result.hasCacheInfo) {
            m_sink.warn(
                { m_forwardLine, 1 }, "no AclGraphCacheInfo(...) literal: inputs are classified by their names only");
        } else {
            const AclGraphCacheInfo& info = m_result.cacheInfo;
            std::set<int> params(info.parameterUserInputs.begin(), info.parameterUserInputs.end());
            std::map<std::string, int> users(info.userInputsMapping.begin(), info.userInputsMapping.end());
            for (size_t pos = 0; pos < ph.size(); ++pos) {
                Node& n = g.nodes[size_t(ph[pos])];
                if (n.inputKind == InputKind::SymInt)
                    continue;
                if (params.count(int(pos))) {
                    n.inputKind = detail::kindFromDynamoName(n.name) == InputKind::Buffer ? InputKind::Buffer
                                                                                          : InputKind::Parameter;
                    n.inputKindFrom = "TorchAir's AclGraphCacheInfo parameter_user_inputs (input " + std::to_string(pos)
                        + ")"
                        + (n.inputKind == InputKind::Buffer ? " and Dynamo's input name " + n.name : std::string());
                    continue;
                }
                n.inputKind = InputKind::UserInput;
                auto u = users.find(n.name);
                n.inputKindFrom = u == users.end() ? std::string()
                                                   : std::string("TorchAir's AclGraphCacheInfo user_inputs_mapping");
                if (u == users.end())
                    m_sink.warn({ m_forwardLine, 1 },
                        "input " + std::to_string(pos) + " '" + n.name
                            + "' is in neither parameter_user_inputs nor user_inputs_mapping; read as a user input");
                else if (u->second != int(pos))
                    m_sink.warn({ m_forwardLine, 1 },
                        "user_inputs_mapping gives '" + n.name + "' index " + std::to_string(u->second)
                            + " but it is input " + std::to_string(pos));
            }
            for (int idx : info.parameterUserInputs)
                if (idx < 0 || size_t(idx) >= ph.size())
                    m_sink.warn({ m_forwardLine, 1 },
                        "parameter_user_inputs names input " + std::to_string(idx) + ", but the forward has "
                            + std::to_string(ph.size()) + " inputs");
            if (std::find(info.fields.begin(), info.fields.end(), "mutated_user_inputs") != info.fields.end())
                g.recordedMutatedInputs = info.mutatedUserInputs;
        }
        for (int idx : ph) {
            const Node& n = g.nodes[size_t(idx)];
            if (n.inputKind != InputKind::SymInt && n.outputs.empty())
                m_sink.warn({ m_forwardLine, 1 },
                    "input '" + n.name + "' has no example in main() or kernel(): its size is unknown");
        }
    }

    void mergeAnnotations()
    {
        Graph& g = m_result.graph;
        int missing = 0;
        for (Node& n : g.nodes) {
            if (n.op != NodeOp::CallFunction && n.op != NodeOp::CallMethod)
                continue;
            if (n.outputs.empty() && m_annotated) {
                const int k = m_annotated->find(n.name);
                if (k >= 0) {
                    const Node& src = m_annotated->nodes[size_t(k)];
                    if (src.target == n.target && src.op == n.op) {
                        n.outputs = src.outputs;
                        if (n.provenance.empty())
                            n.provenance = src.provenance;
                    }
                }
            }
            if (n.outputs.empty() && n.target != "operator.getitem")
                ++missing;
        }
        m_result.nodesWithoutMeta = missing;
        if (missing > 0)
            m_sink.warn({ m_forwardLine, 1 },
                std::to_string(missing)
                    + " node(s) of the forward have no tensor metadata (the generated module prints none"
                    + (m_annotated ? ", and the annotated graph given has no node of the same name and target"
                                   : "; read it from a debug folder or a cache file to take it from the pass dump "
                                     "or the signature")
                    + "): the simulator counts no memory for them");
    }

    // --- compile_configs -> settings -----------------------------------------------------------

    void convertConfigs()
    {
        const bool npu = m_result.backend == config::Backend::NpugraphEx;
        for (const auto& [key, value] : m_result.compileConfigs) {
            const config::OptionSpec* spec = nullptr;
            for (const config::OptionSpec& s : config::optionTable()) {
                const std::string& name = npu ? s.npugraphExName : s.torchairName;
                if (name.empty())
                    continue;
                const size_t dot = name.rfind('.');
                const std::string last = dot == std::string::npos ? name : name.substr(dot + 1);
                if ((npu && name == key) || (!npu && last == key)) {
                    spec = &s;
                    break;
                }
            }
            if (!spec) {
                configWarn(key,
                    "compile_configs[\"" + key + "\"] is not an option the simulator models; it is kept as written");
                continue;
            }
            const std::string& name = npu ? spec->npugraphExName : spec->torchairName;
            PyValue v;
            if (spec->type == "bool") {
                if (value == "1" || value == "True" || value == "true")
                    v = PyValue::boolean(true);
                else if (value == "0" || value == "False" || value == "false")
                    v = PyValue::boolean(false);
                else {
                    configWarn(key, "compile_configs[\"" + key + "\"] = \"" + value + "\" is not a bool; ignored");
                    continue;
                }
            } else if (spec->type == "int") {
                char* end = nullptr;
                errno = 0;
                long long i = std::strtoll(value.c_str(), &end, 10);
                if (value.empty() || *end != '\0' || errno != 0) {
                    configWarn(key, "compile_configs[\"" + key + "\"] = \"" + value + "\" is not an int; ignored");
                    continue;
                }
                v = PyValue::integer(i);
            } else if (spec->type == "choice" || spec->type == "str") {
                v = PyValue::str(value);
            } else {
                configWarn(key, "compile_configs[\"" + key + "\"] has a type the simulator does not read; ignored");
                continue;
            }
            m_result.settings.emplace_back(name, v);
        }
        if (m_result.cacheInfo.pool) {
            for (const config::OptionSpec& s : config::optionTable())
                if (s.type == "pool") {
                    const auto [a, b] = *m_result.cacheInfo.pool;
                    m_result.settings.emplace_back(npu ? s.npugraphExName : s.torchairName,
                        PyValue::tuple({ PyValue::integer(int64_t(a)), PyValue::integer(int64_t(b)) }));
                    break;
                }
        }
        auto parsed = config::parseOptions(m_result.backend, m_result.settings);
        if (!parsed)
            m_sink.warn({ m_forwardLine, 1 }, "TorchAir would refuse these compile_configs: " + parsed.error().message);
    }

    void configWarn(const std::string& key, const std::string& message)
    {
        auto it = m_configLine.find(key);
        if (it == m_configLine.end()) {
            m_sink.warn({ 1, 1 }, message);
            return;
        }
        m_sink.warn(detail::locate(m_text, it->second.first, it->second.second, m_configOffset[key]), message);
    }

    std::string_view m_text;
    std::string m_path;
    const Graph* m_annotated;
    TorchairModule m_result;
    detail::DiagnosticSink m_sink;

    Section m_section = Section::Top;
    int m_lastLine = 0;
    int m_forwardLine = 0; ///< line of `def forward`
    bool m_unpacked = false; ///< the forward's `a, b = args` line has been read
    std::vector<LogicalLine> m_forwardLines;
    std::vector<std::string> m_forwardNames; ///< from `a, b = args` in forward
    std::map<std::string, std::string> m_kernelSymbols; ///< placeholder -> symbol (kernel's `s0 = arg0_1`)
    std::map<int, ExampleInput> m_asserted; ///< input index -> assert_size_stride
    std::map<std::string, ExampleInput> m_main; ///< placeholder -> main()'s example
    std::vector<std::string> m_untypedInputs;
    std::map<std::string, std::pair<int, size_t>> m_configLine;
    std::map<std::string, size_t> m_configOffset;
    bool m_importsNpugraphEx = false;
    bool m_importsTorchair = false;
};

} // namespace

bool looksLikeTorchairModule(std::string_view text)
{
    return text.find("def forward(*args") != std::string_view::npos
        && (text.find("AclGraph(") != std::string_view::npos || text.find("compile_configs") != std::string_view::npos);
}

Result<TorchairModule> readTorchairModule(std::string_view text, const std::string& path, const Graph* annotated)
{
    ModuleReader reader(text, path, annotated);
    return reader.read();
}

Result<TorchairModule> readTorchairModuleFile(const std::string& path, const Graph* annotated)
{
    auto text = readTextFile(path, kMaxModuleBytes, "generated modules");
    if (!text)
        return text.error();
    return readTorchairModule(*text, path, annotated);
}

} // namespace engine::readers
