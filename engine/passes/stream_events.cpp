// The stream and event passes of TorchAir's reduce-overhead pipeline (torchair-behavior.md §4.6,
// TA/graph_pass.py, npugraph_ex's copy in NX/graph_pass.py):
//  * apply_event_closure_with_multi_stream: every scope node gets need_execute=True; when user-stream
//    scopes exist, tagged events close the side streams back onto the capture stream.
//  * apply_event_record: an air.record after every producer an air.wait waits for.
//  * resolve_default_stream_markers: the default-stream marker strings that replace_stream_event_pass
//    left in event/stream ops become attributes of torch.npu.current_stream().
#include "engine/graph/graph_diff.h"
#include "engine/graph/op_info.h"
#include "engine/passes/pass_util.h"
#include "engine/passes/pipeline.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace engine::passes {

namespace {

using config::Backend;

// The namespace of a TorchAir op `<ns>.<op>.default`: "air" (torchair, and the IR's spelling for both
// backends), or "npugraph_ex" (npugraph_ex registers its own copies of the ops). Empty when `n` is
// not that op for this backend.
std::string opNamespace(const Node& n, const std::string& op, const config::Options& options)
{
    if (!detail::isCallFunction(n))
        return {};
    const std::string t = detail::targetOf(n);
    if (t == "air." + op + ".default")
        return "air";
    if (options.backend == Backend::NpugraphEx && t == "npugraph_ex." + op + ".default")
        return "npugraph_ex";
    return {};
}

// `key in node.args[0]` for a scope_enter's key list.
bool hasKey(const Node& n, const std::string& key)
{
    if (n.args.empty() || n.args[0].kind != Arg::Kind::List)
        return false;
    return std::any_of(n.args[0].items.begin(), n.args[0].items.end(),
        [&](const Arg& a) { return a.kind == Arg::Kind::Str && a.s == key; });
}

// node.kwargs = {**node.kwargs, 'need_execute': True}: an existing key keeps its place.
void setNeedExecute(Node& n)
{
    for (auto& kw : n.kwargs)
        if (kw.first == "need_execute") {
            kw.second = detail::boolArg(true);
            return;
        }
    n.kwargs.emplace_back("need_execute", detail::boolArg(true));
}

// Where FX's `inserting_before(first node)` lands. FX puts such nodes ahead of the placeholders; the
// IR keeps placeholders first, so they go right after the last one, ahead of every other node: the
// same place in the generated code, where placeholders are the function's parameters.
int graphStart(const Graph& g)
{
    int i = 0;
    while (size_t(i) < g.nodes.size() && g.nodes[size_t(i)].op == NodeOp::Placeholder)
        ++i;
    return i;
}

Result<std::string> insertAt(Graph& g, int index, Node n)
{
    std::string name = n.name;
    if (auto r = detail::insertNode(g, index, std::move(n)); !r)
        return r.error();
    return name;
}

// A call of a Python function (torch.npu.current_stream, getattr, str): FX names it after the
// function's own name.
Node pyCall(const Graph& g, const std::string& target, std::vector<Arg> args)
{
    Node n = detail::callNode(g, target, std::move(args));
    n.name = detail::freshName(g, splitDots(target).back());
    return n;
}

std::string pyList(const std::vector<std::string>& items)
{
    std::string s = "[";
    for (size_t i = 0; i < items.size(); ++i)
        s += (i ? ", " : "") + argText(detail::strArg(items[i]));
    return s + "]";
}

// Python's int(str): optional sign and surrounding blanks, digits with single underscores between.
std::optional<int64_t> pyInt(const std::string& text)
{
    std::string t = text;
    t.erase(0, t.find_first_not_of(" \t\n"));
    t.erase(t.find_last_not_of(" \t\n") + 1);
    size_t i = (!t.empty() && (t[0] == '+' || t[0] == '-')) ? 1 : 0;
    std::string digits;
    for (; i < t.size(); ++i) {
        if (std::isdigit(static_cast<unsigned char>(t[i])))
            digits += t[i];
        else if (t[i] != '_' || digits.empty() || i + 1 >= t.size() || t[i + 1] == '_')
            return std::nullopt;
    }
    if (digits.empty() || digits.size() > 18)
        return std::nullopt;
    const int64_t v = std::stoll(digits);
    return !t.empty() && t[0] == '-' ? -v : v;
}

struct StreamInfo {
    std::vector<std::pair<std::string, int64_t>> fields; ///< in key order: stream_id, device_index, device_type
    std::optional<int64_t> get(const std::string& k) const
    {
        for (const auto& f : fields)
            if (f.first == k)
                return f.second;
        return std::nullopt;
    }
    std::string repr() const
    {
        std::string s = "{";
        for (size_t i = 0; i < fields.size(); ++i)
            s += (i ? ", " : "") + argText(detail::strArg(fields[i].first)) + ": " + std::to_string(fields[i].second);
        return s + "}";
    }
};

// _extract_user_stream_info: the stream id, device index and device type replace_stream_event_pass
// wrote into the scope's keys; nothing for npu_stream_switch's scopes.
Result<void> extractStreamInfo(
    const Node& n, const std::string& label, std::vector<std::pair<std::string, StreamInfo>>& infos, PassReport& report)
{
    const auto& keys = n.args[0].items;
    const auto& values = n.args[1].items;
    static const std::map<std::string, std::string> names = { { "_user_stream_id", "stream_id" },
        { "_user_stream_device_index", "device_index" }, { "_user_stream_device_type", "device_type" } };
    StreamInfo info;
    for (size_t i = 0; i < keys.size() && i < values.size(); ++i) {
        auto it = keys[i].kind == Arg::Kind::Str ? names.find(keys[i].s) : names.end();
        if (it == names.end())
            continue;
        const std::string text = values[i].kind == Arg::Kind::Str ? values[i].s : argText(values[i]);
        auto v = values[i].kind == Arg::Kind::Int ? std::optional<int64_t>(values[i].i) : pyInt(text);
        if (!v)
            return makeError(ErrorCode::InvalidArgument,
                "ValueError: invalid literal for int() with base 10: " + argText(detail::strArg(text))
                    + " (_extract_user_stream_info, scope " + n.name + ")");
        bool replaced = false;
        for (auto& f : info.fields)
            if (f.first == it->second) {
                f.second = *v;
                replaced = true;
            }
        if (!replaced)
            info.fields.emplace_back(it->second, *v);
    }
    if (info.fields.empty())
        return {};
    bool replaced = false;
    for (auto& entry : infos)
        if (entry.first == label) {
            entry.second = info;
            replaced = true;
        }
    if (!replaced)
        infos.emplace_back(label, info);
    report.log.push_back("Collected stream info for label " + label + ": " + info.repr());
    return {};
}

// What apply_event_closure_with_multi_stream hands back to AclConcreteGraph.optimize_graph_without_runtime.
struct ClosureResult {
    bool multiStreamEnabled = false;
    std::vector<std::pair<std::string, std::string>> enterDict; ///< stream_scope_enter_nodes_dict
    std::vector<std::string> exitList; ///< stream_scope_exit_nodes_list
    std::vector<std::string> taggedEventNames;
    std::set<std::string> userStreamLabel;
    std::vector<std::pair<std::string, StreamInfo>> userStreamInfo;
};

void logCreatedEvent(PassReport& report, const std::string& tag)
{
    // _create_event_by_name's f-string prints the torch.npu.Event object, known only at run time.
    report.log.push_back("aclgraph-inspector: _create_event_by_name creates a torch.npu.Event for the tag '" + tag
        + "' and logs \"[Multi-stream] Created new event <the event> with key '" + tag
        + "'.\" (once per process: not again if an earlier graph made the same tag)");
}

std::string scopeNodeList(const std::vector<std::pair<std::string, std::string>>& dict)
{
    std::string s = "{";
    for (size_t i = 0; i < dict.size(); ++i)
        s += (i ? ", " : "") + argText(detail::strArg(dict[i].first)) + ": " + argText(detail::strArg(dict[i].second));
    return s + "}";
}

// The scan both copies share: need_execute on every scope node, the user-stream scopes and their exits.
struct ScopeScan {
    std::vector<std::string> enters, exits; ///< user-stream scope_enter / scope_exit nodes, in graph order
    std::string ns = "air";
    std::map<std::string, std::string> userPassEnter, userPassExit; ///< npugraph_ex: label -> node
    std::vector<std::string> userPassEnterOrder, userPassExitOrder; ///< labels, in insertion order
};

// The label a user-stream scope_enter carries: torchair reads values[0]; npugraph_ex's _get_stream_label
// the value of the '_user_stream_label' key.
Result<std::string> streamLabel(const Node& n, bool byKey)
{
    if (n.args.size() < 2 || n.args[1].kind != Arg::Kind::List)
        return makeError(ErrorCode::InvalidArgument,
            "IndexError: tuple index out of range (the label of user-stream scope " + n.name + ")");
    const auto& keys = n.args[0].items;
    const auto& values = n.args[1].items;
    size_t at = 0;
    if (byKey) {
        at = keys.size();
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i].kind == Arg::Kind::Str && keys[i].s == "_user_stream_label") {
                at = i;
                break;
            }
    }
    if (at >= values.size())
        return makeError(ErrorCode::InvalidArgument,
            byKey ? "RuntimeError: There is no _user_stream_label value in node: " + n.name
                    + ", node.args: " + argText(Arg::list(n.args))
                  : "IndexError: list index out of range (the label of user-stream scope " + n.name + ")");
    return values[at].kind == Arg::Kind::Str ? values[at].s : argText(values[at]);
}

Result<ScopeScan> scanScopes(Graph& g, const config::Options& options, ClosureResult& out, PassReport& report)
{
    const bool npugraphEx = options.backend == Backend::NpugraphEx;
    ScopeScan scan;
    std::vector<int> stack;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& n = g.nodes[i];
        if (const std::string ns = opNamespace(n, "scope_enter", options); !ns.empty()) {
            setNeedExecute(n);
            if (hasKey(n, "_user_stream_label")) {
                auto label = streamLabel(n, npugraphEx);
                if (!label)
                    return label.error();
                if (scan.enters.empty())
                    scan.ns = ns;
                scan.enters.push_back(n.name);
                out.userStreamLabel.insert(*label);
                out.enterDict.emplace_back(n.name, *label);
                if (npugraphEx && !hasKey(n, "_user_stream_id") && !scan.userPassEnter.count(*label)) {
                    scan.userPassEnter[*label] = n.name;
                    scan.userPassEnterOrder.push_back(*label);
                }
                if (auto ok = extractStreamInfo(n, *label, out.userStreamInfo, report); !ok)
                    return ok.error();
            }
            stack.push_back(int(i));
        } else if (!opNamespace(n, "scope_exit", options).empty()) {
            setNeedExecute(n);
            if (stack.empty())
                return makeError(ErrorCode::InvalidArgument,
                    "IndexError: pop from empty list (" + n.name + " closes no scope_enter)");
            const Node& enter = g.nodes[size_t(stack.back())];
            if (hasKey(enter, "_user_stream_label")) {
                scan.exits.push_back(n.name);
                out.exitList.push_back(n.name);
                if (npugraphEx && !hasKey(enter, "_user_stream_id")) {
                    auto label = streamLabel(enter, true);
                    if (!label)
                        return label.error();
                    if (!scan.userPassExit.count(*label))
                        scan.userPassExitOrder.push_back(*label);
                    scan.userPassExit[*label] = n.name;
                }
            }
            stack.pop_back();
        }
    }
    return scan;
}

Node taggedCall(const Graph& g, const std::string& ns, const std::string& op, std::vector<Arg> args)
{
    return detail::callNode(g, ns + "." + op + ".default", std::move(args));
}

// A user-stream scope_exit `exit` closed by tag `<graph>_<exit>`: its record just before the exit, its
// wait just before the graph output (both closures do this for the scopes they close this way).
Result<void> closeScopeExit(
    Graph& g, const ScopeScan& scan, const std::string& exit, ClosureResult& out, PassReport& report)
{
    const std::string exitTag = g.id + "_" + exit;
    const Arg yes = detail::boolArg(true);
    logCreatedEvent(report, exitTag);
    out.taggedEventNames.push_back(exitTag);
    if (auto r
        = insertAt(g, g.find(exit), taggedCall(g, scan.ns, "tagged_event_record", { detail::strArg(exitTag), yes }));
        !r)
        return r.error();
    if (auto r
        = insertAt(g, g.outputNode(), taggedCall(g, scan.ns, "tagged_event_wait", { detail::strArg(exitTag), yes }));
        !r)
        return r.error();
    return {};
}

// torchair's closure (TA/graph_pass.py:613-680): a record of `<graph>_<first node>` ahead of everything,
// its wait after each user-stream scope_enter; per user-stream scope_exit a record of
// `<graph>_<exit>` before it and its wait before the output.
Result<void> torchairClosure(Graph& g, const ScopeScan& scan, ClosureResult& out, PassReport& report)
{
    const std::string enterTag = g.id + "_" + g.nodes.front().name;
    logCreatedEvent(report, enterTag);
    out.taggedEventNames.push_back(enterTag);
    const Arg yes = detail::boolArg(true);
    if (auto r
        = insertAt(g, graphStart(g), taggedCall(g, scan.ns, "tagged_event_record", { detail::strArg(enterTag), yes }));
        !r)
        return r.error();
    for (const std::string& enter : scan.enters)
        if (auto r = insertAt(
                g, g.find(enter) + 1, taggedCall(g, scan.ns, "tagged_event_wait", { detail::strArg(enterTag), yes }));
            !r)
            return r.error();
    for (const std::string& exit : scan.exits)
        if (auto r = closeScopeExit(g, scan, exit, out, report); !r)
            return r;
    return {};
}

// npugraph_ex's closure (NX/graph_pass.py:604-738): per distinct stream of replace_stream_event_pass
// (stream id, device index, device type), a wait of the first record on that stream and, before the
// output, a record on it and a wait on the capture stream; scopes without a stream id (a user's
// custom pass) get the torchair treatment, once per label.
Result<void> npugraphExClosure(Graph& g, const ScopeScan& scan, ClosureResult& out, PassReport& report)
{
    const Arg yes = detail::boolArg(true);
    const std::string enterTag = g.id + "_" + g.nodes.front().name;
    logCreatedEvent(report, enterTag);
    out.taggedEventNames.push_back(enterTag);

    // no_duplicate_stream_list: one entry per (stream_id, device_index, device_type), the last one's
    // info at the first one's place (a dict comprehension).
    std::vector<std::pair<std::vector<int64_t>, StreamInfo>> streams;
    for (const auto& [label, info] : out.userStreamInfo) {
        std::vector<int64_t> key;
        for (const char* k : { "stream_id", "device_index", "device_type" }) {
            auto v = info.get(k);
            if (!v)
                return makeError(ErrorCode::InvalidArgument,
                    std::string("KeyError: '") + k + "' (the stream info of label " + label + ": " + info.repr() + ")");
            key.push_back(*v);
        }
        auto it = std::find_if(streams.begin(), streams.end(), [&](const auto& s) { return s.first == key; });
        if (it == streams.end())
            streams.emplace_back(key, info);
        else
            it->second = info;
    }

    auto first
        = insertAt(g, graphStart(g), taggedCall(g, scan.ns, "tagged_event_record", { detail::strArg(enterTag), yes }));
    if (!first)
        return first.error();
    for (const auto& [key, info] : streams) {
        std::vector<Arg> where = { detail::strArg(std::to_string(key[0])), detail::strArg(std::to_string(key[1])),
            detail::strArg(std::to_string(key[2])) };
        std::vector<Arg> waitArgs = { detail::strArg(enterTag) };
        waitArgs.insert(waitArgs.end(), where.begin(), where.end());
        waitArgs.push_back(yes);
        if (auto r = insertAt(g, g.find(*first) + 1, taggedCall(g, scan.ns, "tagged_event_wait_on_stream", waitArgs));
            !r)
            return r.error();
        const std::string exitTag = g.id + "_stream_id_" + std::to_string(key[0]) + "_device_index_"
            + std::to_string(key[1]) + "_device_type_" + std::to_string(key[2]);
        logCreatedEvent(report, exitTag);
        out.taggedEventNames.push_back(exitTag);
        std::vector<Arg> recordArgs = { detail::strArg(exitTag) };
        recordArgs.insert(recordArgs.end(), where.begin(), where.end());
        recordArgs.push_back(yes);
        if (auto r = insertAt(g, g.outputNode(), taggedCall(g, scan.ns, "tagged_event_record_on_stream", recordArgs));
            !r)
            return r.error();
        if (auto r = insertAt(
                g, g.outputNode(), taggedCall(g, scan.ns, "tagged_event_wait", { detail::strArg(exitTag), yes }));
            !r)
            return r.error();
    }
    for (const std::string& label : scan.userPassEnterOrder)
        if (auto r = insertAt(g, g.find(scan.userPassEnter.at(label)) + 1,
                taggedCall(g, scan.ns, "tagged_event_wait", { detail::strArg(enterTag), yes }));
            !r)
            return r.error();
    for (const std::string& label : scan.userPassExitOrder)
        if (auto r = closeScopeExit(g, scan, scan.userPassExit.at(label), out, report); !r)
            return r;
    return {};
}

std::string setRepr(const std::set<std::string>& s)
{
    if (s.empty())
        return "set()";
    std::string r = "{";
    for (const std::string& x : s)
        r += (r.size() > 1 ? ", " : "") + argText(detail::strArg(x));
    return r + "}";
}

} // namespace

Result<PassReport> applyEventClosureWithMultiStream(Graph& graph, const config::Options& options)
{
    ClosureResult out;
    auto report = detail::runPass(
        graph, "apply_event_closure_with_multi_stream", {}, true, [&](Graph& g, PassReport& report) -> Result<void> {
            auto scan = scanScopes(g, options, out, report);
            if (!scan)
                return scan.error();
            const bool npugraphEx = options.backend == Backend::NpugraphEx;
            const bool none
                = npugraphEx ? out.userStreamInfo.empty() && scan->userPassEnter.empty() : scan->enters.empty();
            if (none) {
                report.log.push_back("No scope_enter node found in graph[" + g.id + "], no need to insert event.");
                return {};
            }
            if (g.outputNode() != int(g.nodes.size()) - 1)
                return makeError(ErrorCode::InvalidArgument, "RuntimeError: Graph must have output node as last node");
            auto ok = npugraphEx ? npugraphExClosure(g, *scan, out, report) : torchairClosure(g, *scan, out, report);
            if (!ok)
                return ok.error();
            out.multiStreamEnabled = npugraphEx ? !out.userStreamInfo.empty() : !scan->enters.empty();
            report.log.push_back("End to insert event in graph[" + g.id + "].");
            report.log.push_back("Tagged event names are: [" + pyList(out.taggedEventNames) + "]");
            report.log.push_back("user_stream_label names are: [" + setRepr(out.userStreamLabel) + "]");
            return {};
        });
    if (!report)
        return report;
    const char* flag = out.multiStreamEnabled ? "True" : "False";
    // fx2acl_converter.py logs this right after the pass (TA:254, NX:242).
    report->log.push_back(
        std::string("after apply_stream_event_closure optimization, multi_stream_enabled is ") + flag + ".");
    std::string infos = "{";
    for (size_t i = 0; i < out.userStreamInfo.size(); ++i)
        infos += (i ? ", " : "") + argText(detail::strArg(out.userStreamInfo[i].first)) + ": "
            + out.userStreamInfo[i].second.repr();
    infos += "}";
    report->log.push_back("aclgraph-inspector: the pass returns multi_stream_enabled=" + std::string(flag)
        + ", stream_scope_enter_nodes_dict=" + scopeNodeList(out.enterDict)
        + " and stream_scope_exit_nodes_list=" + pyList(out.exitList)
        + ". _codegen_fx_forward opens `with torch.npu.stream(_GLOBAL_USER_TAG_TO_STREAM[<label>]):` after each "
          "listed scope_enter and closes it after each listed scope_exit; multi_stream_enabled is handed to "
          "_reinplace_inplaceable_ops_pass, which does not use it. The generated module's AclGraphCacheInfo gets "
          "tagged_event_names="
        + pyList(out.taggedEventNames) + ", user_stream_label=" + setRepr(out.userStreamLabel)
        + " and user_stream_info=" + infos + " (sets printed sorted).");
    return report;
}

Result<PassReport> applyEventRecord(Graph& graph, const config::Options& options)
{
    return detail::runPass(graph, "apply_event_record", {}, true, [&](Graph& g, PassReport& report) -> Result<void> {
        std::map<std::string, std::string> recordOf; // wait_record_dic: producer -> its record
        std::vector<std::string> waits;
        for (const Node& n : g.nodes)
            if (!opNamespace(n, "wait", options).empty())
                waits.push_back(n.name);
        for (const std::string& waitName : waits) {
            const std::string ns = opNamespace(g.nodes[size_t(g.find(waitName))], "wait", options);
            const Node& wait = g.nodes[size_t(g.find(waitName))];
            if (wait.args.empty() || wait.args[0].kind != Arg::Kind::List) {
                report.skipped.push_back({ waitName,
                    "aclgraph-inspector: args[0] is not a list of tensors; TorchAir's wait() accepts only one" });
                continue;
            }
            std::vector<Arg> items = wait.args[0].items;
            for (Arg& item : items) {
                const int p = detail::refOf(g, item);
                if (p < 0)
                    continue;
                if (!opNamespace(g.nodes[size_t(p)], "record", options).empty())
                    continue;
                const std::string producer = g.nodes[size_t(p)].name; // a copy: inserting moves the nodes
                auto it = recordOf.find(producer);
                if (it == recordOf.end()) {
                    Node rec = detail::callNode(g, ns + ".record.default", {});
                    const std::string name = rec.name;
                    if (auto r = detail::insertNode(g, p + 1, std::move(rec)); !r)
                        return r.error();
                    it = recordOf.emplace(producer, name).first;
                }
                item = Arg::ref(it->second);
            }
            Node& w = g.nodes[size_t(g.find(waitName))];
            w.args = { Arg::list(std::move(items)) };
            if (auto ok = g.finalize(); !ok)
                return ok.error();
        }
        report.log.push_back("End insert record node in graph:[" + g.id + "]");
        return {};
    });
}

Result<PassReport> resolveDefaultStreamMarkers(Graph& graph, const config::Options& options)
{
    return detail::runPass(
        graph, "resolve_default_stream_markers", {}, true, [&](Graph& g, PassReport& report) -> Result<void> {
            static const std::vector<std::string> markers
                = { "DEFAULT_STREAM_ID_MARKER", "DEFAULT_DEVICE_INDEX_MARKER", "DEFAULT_DEVICE_TYPE_MARKER" };
            auto whitelisted = [&](const Node& n) {
                for (const char* op : { "tagged_event_record_on_stream", "tagged_event_wait_on_stream",
                         "tagged_stream_wait_stream", "scope_enter" })
                    if (!opNamespace(n, op, options).empty())
                        return true;
                return false;
            };
            // Only top-level string arguments count (`isinstance(arg, str)`): a marker inside
            // scope_enter's value list is neither found nor replaced.
            auto markerAt = [&](const Arg& a) {
                return a.kind == Arg::Kind::Str ? int(std::find(markers.begin(), markers.end(), a.s) - markers.begin())
                                                : int(markers.size());
            };
            bool found = false;
            for (const Node& n : g.nodes)
                if (whitelisted(n))
                    for (const Arg& a : n.args)
                        found = found || markerAt(a) < int(markers.size());
            if (!found) {
                report.log.push_back(
                    "No default stream markers found in graph, skip resolve_default_stream_markers pass");
                return {};
            }
            report.log.push_back("Found default stream markers in graph, inserting current_stream nodes...");
            int at = graphStart(g);
            auto add = [&](Node n) -> Result<std::string> { return insertAt(g, at++, std::move(n)); };
            auto stream = add(pyCall(g, "torch.npu.current_stream", {}));
            if (!stream)
                return stream.error();
            std::vector<std::string> strs;
            for (const char* attr : { "stream_id", "device_index", "device_type" }) {
                auto get = add(pyCall(g, "builtins.getattr", { Arg::ref(*stream), detail::strArg(attr) }));
                if (!get)
                    return get.error();
                auto s = add(pyCall(g, "builtins.str", { Arg::ref(*get) }));
                if (!s)
                    return s.error();
                strs.push_back(*s);
            }
            for (Node& n : g.nodes) {
                if (!whitelisted(n))
                    continue;
                bool changed = false;
                for (Arg& a : n.args)
                    if (const int k = markerAt(a); k < int(markers.size())) {
                        a = Arg::ref(strs[size_t(k)]);
                        changed = true;
                    }
                if (changed)
                    report.log.push_back("Replaced default stream markers in node: " + n.name);
            }
            if (auto ok = g.finalize(); !ok)
                return ok.error();
            report.log.push_back("aclgraph-inspector: TorchAir then logs 'After resolve_default_stream_markers, "
                                 "graph is: <the graph as print(gm.graph) prints it>'; here the graph is this pass's "
                                 "stage");
            return {};
        });
}

} // namespace engine::passes
