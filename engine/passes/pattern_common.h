#pragma once
// apply_pattern_passes (internal): what the pattern files share. TorchAir registers its fusions with
// inductor's pattern matcher (TA/patterns/pattern_pass_manager.py `register_replacement`, fwd_only
// tracing); this header holds the pieces of that matcher the hand-written matchers of
// pattern_rms_norm.cpp and pattern_bmm.cpp need: how one call node of a pattern is checked
// (`_TargetArgsExpr._match`: target, positional count, users, keyword arguments), what a match
// holds (`Match.nodes` in inductor's order, the KeywordArg bindings, the output nodes), and the
// rewrite (`ReplacementPatternEntry.replace_with_graph`).
#include "engine/passes/pass_util.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace engine::passes::pattern {

/// How far an attempt got, to tell which of the entries tried on a node came closest.
enum class Stage {
    Structure, ///< the pattern's nodes (targets, arguments, users)
    Region, ///< PatternMatcherPass.apply: the match crosses a mutation barrier
    Check, ///< register_replacement's check_fn: metadata, the re-traced pattern
    Stream, ///< _check_pattern_stream
    Extra, ///< the pattern's own extra_check
    Rewrite, ///< the replacement could not be built here
};

/// inductor's Match, for one entry on one root node.
struct Match {
    std::vector<int> nodes; ///< Match.nodes, in inductor's order (arguments before their user)
    std::map<std::string, Arg> kwargs; ///< KeywordArg bindings (x1, x2, gamma, epsilon, ...)
    std::vector<int> outputs; ///< the pattern's outputs, in its order (output_nodes())
};

/// A failed attempt: where it stopped and why (TorchAir's DEBUG text, or ours with the prefix).
struct Attempt {
    Stage stage = Stage::Structure;
    size_t depth = 0; ///< pattern nodes matched before it stopped
    std::string reason;
    bool closerThan(const Attempt& o) const { return stage != o.stage ? stage > o.stage : depth > o.depth; }
};

/// Checks the call nodes of one pattern, root first, and remembers the first failure.
class Matcher {
public:
    explicit Matcher(const Graph& g)
        : m_g(g)
    {
    }
    const Graph& graph() const { return m_g; }
    /// `CallFunction(target, <nargs positional>, **{kwargs}, _users=users)`: the node's target, its
    /// number of positional arguments (exactly), its number of users (users < 0: an output of the
    /// pattern, any number), and the pattern's keyword arguments, read as inductor reads them (only
    /// those names; schema defaults when the node has fewer keyword arguments than the pattern).
    /// `role` names the node in the failure reason ("npu_add_rms_norm").
    bool call(int node, const std::string& target, size_t nargs, int users, const std::string& role,
        const std::vector<std::string>& kwargs = {});
    /// `CallFunction(operator.getitem, <source>, index)`.
    bool getitem(int node, int source, int64_t index, int users, const std::string& role);
    /// args[i] of `node` as a node (the pattern has a sub-pattern there); -1 and a failure otherwise.
    int input(int node, size_t i, const std::string& what);
    /// The keyword argument `name` of the last call() (after inductor's normalization).
    Arg kwarg(const std::string& name) const;
    /// Fails with `reason` (ours; the caller writes it with the prefix).
    bool fail(const std::string& reason);
    void matched() { ++m_depth; }
    bool ok() const { return m_reason.empty(); }
    Attempt attempt(Stage stage = Stage::Structure) const { return { stage, m_depth, m_reason }; }

private:
    const Graph& m_g;
    size_t m_depth = 0;
    std::string m_reason;
    std::map<std::string, Arg> m_kwargs;
};

/// The users of a node, as FX's node.users (unique, in order).
std::string usersText(const Graph& g, int node);
/// Python's print of a constant argument (`-1`, `True`, `None`, `[-1, 1]`, a node's name).
std::string pyValue(const Arg& a);
/// Python's repr of a float (`1e-06`, `2e-06`, `1.5`).
std::string pyFloat(double v);
using detail::torchDType;
/// `torch.Size([64, 4, 512])`.
std::string torchSize(const TensorMeta& t);
/// The tensor metadata of the node an argument refers to (its only or first result), or nullptr.
const TensorMeta* metaOf(const Graph& g, const Arg& a);
const TensorMeta* metaOf(const Graph& g, int node);
/// True when the argument is the float `v`.
bool isFloat(const Arg& a, double v);

/// One new node of the replacement graph, in the order fwd_only traces it.
struct NewNode {
    std::string target;
    std::vector<Arg> args; ///< NodeRef names; `$k` stands for the k-th new node
    std::vector<std::pair<std::string, Arg>> kwargs;
    std::vector<TensorMeta> outputs;
};
/// `replace_with_graph`: inserts the new nodes before the earliest output node of the match, makes
/// the users of each output node use its replacement (`replacements[i]` is an index into `nodes`),
/// erases the output nodes, then every match node left without users (last first). Returns the
/// names of the new nodes, or the reason why it cannot be done here (an argument defined after the
/// insertion point) in `why`.
Result<std::vector<std::string>> replaceWithGraph(Graph& g, const Match& m, const std::vector<NewNode>& nodes,
    const std::vector<int>& replacements, std::string& why);

/// State the driver keeps while it applies the entries.
struct Context {
    /// stream_label of each node as add_stream_label_to_node_meta wrote it before the pass; nodes
    /// added by a rewrite have none (the default stream), as in TorchAir.
    std::map<std::string, std::optional<std::string>> labels;
    /// mutation_region_id of each node (compute_mutation_region_ids / get_mutation_region_id).
    std::map<std::string, int> regions;
};

/// `mutation_region_id` of a node, computed like inductor's get_mutation_region_id for nodes added
/// after the first computation.
int mutationRegion(const Graph& g, Context& ctx, int node);
/// FX is_mutation_op: a mutable schema for an OpOverload, otherwise the name pattern or out=.
bool isMutationOp(const Graph& g, int node);

/// One registered replacement (`register_replacement(search_fn, replace_fn, ...)`).
struct Entry {
    std::string name; ///< "add_rms_norm_dynamic_quant: search_fn_with_epsilon"
    std::string rootTarget; ///< the target of the pattern's first output
    /// Whether `root` looks like this entry's root (for the report: only those get a skip entry).
    std::function<bool(const Graph&, int)> candidate;
    /// The structural match; nullopt with `fail` filled when it does not match.
    std::function<std::optional<Match>(const Graph&, int, Attempt&)> match;
    /// register_replacement's check_fn beyond the structure (the re-traced pattern): "" when fine.
    std::function<std::string(const Graph&, const Match&)> recheck;
    /// The pattern's extra_check (after the stream check): appends TorchAir's DEBUG lines to `log`;
    /// on refusal sets `why` (the last line, or ours when TorchAir prints none).
    std::function<bool(const Graph&, const Match&, std::vector<std::string>& log, std::string& why)> extra;
    /// The replacement graph for this match (fwd_only(replace_fn, args)); `why` set when it cannot be
    /// built here. `notes` gets our remarks.
    std::function<std::optional<std::pair<std::vector<NewNode>, std::vector<int>>>(
        const Graph&, const Match&, std::vector<std::string>& notes, std::string& why)>
        replacement;
    std::string fusedTarget; ///< the op the replacement inserts
};

// The entries in TorchAir's registration order (pattern_util.py `_apply_pattern_passes`).
std::vector<Entry> dynamicQuantEntries(); ///< add_rms_norm_dynamic_quant.py: both registrations
std::vector<Entry> castEntries(); ///< add_rms_norm_cast.py
std::vector<Entry> bmmTransposeEntries(); ///< batch_matmul_transpose.py: pattern2, 3, then pattern, 1
std::vector<Entry> quantEntries(); ///< add_rms_norm_quant.py

} // namespace engine::passes::pattern
