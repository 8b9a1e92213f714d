// The compile-cache key (engine/cache/cache_key.h), folder-name parsing and the signature
// (cache_scan.h, cache_artifact.h), and MD5 (core/md5.h): all without files.
#include "engine/cache/cache_artifact.h"
#include "engine/cache/cache_key.h"
#include "engine/cache/cache_scan.h"
#include "engine/core/md5.h"

#include <gtest/gtest.h>

namespace {

using namespace engine;
using namespace engine::cache;
using config::Backend;

// Reference §5.1, verified there by executing TorchAir's config classes.
const std::string kTorchairDefault
    = "ge.enableSingleStream=false,ge.oo.level=O3,ge.exportCompileStat=2,disable_mempool_reuse_in_same_fx=0,"
      "enable_output_clone=0,static_capture_size_limit=64,clone_input=1,run_eagerly=0,deadlock_check=0,remove_noop_ops="
      "1,"
      "pattern_fusion_pass=1,frozen_parameter=0,mode=reduce-overhead";
const std::string kNpugraphExDefault
    = "force_eager=False,reuse_graph_pool_in_same_fx=True,clone_output=False,capture_limit=64,clone_input=True,"
      "deadlock_check=False,capture_error_mode=global,force_recapture=False,remove_noop_ops=True,pattern_fusion_pass="
      "True,"
      "frozen_parameter=False";

CacheKey keyOf(Backend b, const Settings& s, const std::optional<std::string>& repr = {})
{
    auto k = computeCacheKey(b, s, repr);
    EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().toString());
    return k.ok() ? k.value() : CacheKey {};
}

TEST(Md5, KnownVectors)
{
    // RFC 1321 appendix A.5.
    EXPECT_EQ(md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
    EXPECT_EQ(md5Hex("a"), "0cc175b9c0f1b6a831c399e269772661");
    EXPECT_EQ(md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
    EXPECT_EQ(md5Hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
    EXPECT_EQ(md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
        "57edf4a22be3c955ac49da2e2107b67a");
    // Lengths around the 56-byte padding boundary and across update() calls.
    const std::string s(200, 'x');
    for (size_t n : { 55, 56, 57, 63, 64, 65, 119, 120, 121 }) {
        Md5 split;
        split.update(std::string_view(s).substr(0, n / 3));
        split.update(std::string_view(s).substr(n / 3, n - n / 3));
        EXPECT_EQ(split.hexDigest(), md5Hex(s.substr(0, n))) << n;
    }
    EXPECT_NE(md5Hex(std::string(56, 'x')), md5Hex(std::string(57, 'x')));
}

TEST(CacheKey, DefaultsAreTorchAirsStrings)
{
    EXPECT_EQ(keyOf(Backend::TorchAir, {}).optionString, kTorchairDefault);
    EXPECT_EQ(keyOf(Backend::NpugraphEx, {}).optionString, kNpugraphExDefault);
    for (const KeyOption& o : keyOf(Backend::TorchAir, {}).options)
        EXPECT_TRUE(o.isDefault) << o.key;
}

TEST(CacheKey, ValuesInTheBackendsOwnForm)
{
    // torchair: OptionValue.value gives "1"/"0"; either spelling of the option may be written.
    auto k = keyOf(Backend::TorchAir,
        { { "debug.aclgraph.clone_input", PyValue::boolean(false) }, { "capture_limit", PyValue::integer(8) },
            { "experimental_config.frozen_parameter", PyValue::boolean(true) } });
    EXPECT_NE(k.optionString.find(",static_capture_size_limit=8,clone_input=0,"), std::string::npos) << k.optionString;
    EXPECT_NE(k.optionString.find("frozen_parameter=1,mode=reduce-overhead"), std::string::npos);
    // the inverted npugraph_ex name through torchair's options= mapper
    k = keyOf(Backend::TorchAir, { { "reuse_graph_pool_in_same_fx", PyValue::boolean(false) } });
    EXPECT_NE(k.optionString.find("disable_mempool_reuse_in_same_fx=1"), std::string::npos);
    // npugraph_ex keeps the value as written: 0 for a bool option is "0", not "False" (another key)
    k = keyOf(Backend::NpugraphEx, { { "clone_input", PyValue::integer(0) } });
    EXPECT_NE(k.optionString.find(",clone_input=0,"), std::string::npos) << k.optionString;
    EXPECT_NE(keyOf(Backend::NpugraphEx, { { "clone_input", PyValue::boolean(false) } }).optionString, k.optionString);
    EXPECT_FALSE(k.notes.empty()); // parseOptions' note: 0 reads as truthy there
}

TEST(CacheKey, StaticKernelAddsItsKeysBeforeRemoveNoopOps)
{
    auto k = keyOf(Backend::NpugraphEx, { { "static_kernel_compile", PyValue::boolean(true) } });
    EXPECT_NE(
        k.optionString.find("force_recapture=False,static_kernel_compile=True,_vllm_aclnn_static_kernel_sym_range=None,"
                            "_vllm_aclnn_static_kernel_sym_index=0,remove_noop_ops=True"),
        std::string::npos)
        << k.optionString;
}

// torchair: _AclGraphExperimentalConfig.as_dict puts four keys after the experimental options when the
// static shape kernel is on (TC/experimental_config.py:69-107), none when it is off.
TEST(CacheKey, TorchairStaticKernelAddsItsFourKeysBeforeMode)
{
    const std::string off = keyOf(Backend::TorchAir, {}).optionString;
    EXPECT_EQ(off.find("_aclnn_static_shape_kernel"), std::string::npos) << off;
    EXPECT_NE(off.find("frozen_parameter=0,mode=reduce-overhead"), std::string::npos) << off;

    auto k = keyOf(
        Backend::TorchAir, { { "experimental_config.aclgraph._aclnn_static_shape_kernel", PyValue::boolean(true) } });
    EXPECT_NE(
        k.optionString.find("frozen_parameter=0,_aclnn_static_shape_kernel=1,_aclnn_static_shape_kernel_build_dir=,"
                            "_aclnn_static_shape_kernel_sym_value_range=None,"
                            "_aclnn_static_shape_kernel_sym_index=0,mode=reduce-overhead"),
        std::string::npos)
        << k.optionString;
    EXPECT_NE(k.optionString, off);

    // The values as given: a build folder, a list of symbol values (Python's str), an index.
    k = keyOf(Backend::TorchAir,
        { { "experimental_config.aclgraph._aclnn_static_shape_kernel", PyValue::boolean(true) },
            { "experimental_config.aclgraph._aclnn_static_shape_kernel_build_dir", PyValue::str("/tmp/k") },
            { "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_value_range",
                PyValue::list({ PyValue::integer(1), PyValue::integer(64) }) },
            { "experimental_config.aclgraph._aclnn_static_shape_kernel_sym_index", PyValue::integer(1) } });
    EXPECT_NE(k.optionString.find("_aclnn_static_shape_kernel=1,_aclnn_static_shape_kernel_build_dir=/tmp/k,"
                                  "_aclnn_static_shape_kernel_sym_value_range=[1, 64],"
                                  "_aclnn_static_shape_kernel_sym_index=1,mode="),
        std::string::npos)
        << k.optionString;
    EXPECT_TRUE(k.notes.empty() || k.notes.front().find("static shape kernel") == std::string::npos);
}

TEST(CacheKey, OptionsOutsideTheKey)
{
    const auto torchair = optionsNotInKey(Backend::TorchAir);
    for (const char* name : { "debug.aclgraph.remove_cat_ops", "debug.aclgraph.disable_reinplace_inplaceable_ops_pass",
             "debug.aclgraph.disable_reinplace_input_mutated_ops_pass", "aclgraph_config.use_custom_pool",
             "experimental_config.keep_inference_input_mutations" })
        EXPECT_NE(std::find(torchair.begin(), torchair.end(), name), torchair.end()) << name;
    EXPECT_EQ(std::find(torchair.begin(), torchair.end(), "debug.aclgraph.clone_input"), torchair.end());
    const auto ex = optionsNotInKey(Backend::NpugraphEx);
    for (const char* name : { "inplace_pass", "input_inplace_pass", "remove_cat_ops", "use_graph_pool" })
        EXPECT_NE(std::find(ex.begin(), ex.end(), name), ex.end()) << name;

    // Changing one of them leaves the string alone, and the key says so.
    auto k = keyOf(Backend::TorchAir, { { "debug.aclgraph.remove_cat_ops", PyValue::boolean(false) } });
    EXPECT_EQ(k.optionString, kTorchairDefault);
    ASSERT_EQ(k.settingsOutsideKey.size(), 1u);
    EXPECT_EQ(k.settingsOutsideKey[0], "debug.aclgraph.remove_cat_ops");
    // The custom pool is outside too, and its side effect on the config object is noted.
    k = keyOf(Backend::TorchAir,
        { { "aclgraph_config.use_custom_pool", PyValue::tuple({ PyValue::integer(0), PyValue::integer(7) }) } });
    EXPECT_EQ(k.optionString, kTorchairDefault);
    EXPECT_FALSE(k.notes.empty());
}

TEST(CacheKey, InvalidSettingsFailWithTorchAirsMessage)
{
    auto k = computeCacheKey(Backend::TorchAir, { { "debug.aclgraph.clone_input", PyValue::str("yes") } });
    ASSERT_FALSE(k.ok());
    EXPECT_NE(k.error().message.find("not in optional list"), std::string::npos) << k.error().message;
}

TEST(CacheKey, Md5OfReprAndOptions)
{
    const std::string repr = "Model(\n  (linear1): Linear(in_features=2, out_features=2, bias=True)\n)";
    auto k = keyOf(Backend::TorchAir, {}, repr);
    ASSERT_TRUE(k.md5);
    EXPECT_EQ(*k.md5, md5Hex(repr + kTorchairDefault));
}

TEST(CacheKey, MatchNamesTheDifferingOption)
{
    const std::string repr = "M()";
    const auto cachedKey
        = keyOf(Backend::TorchAir, { { "debug.aclgraph.clone_input", PyValue::boolean(false) } }, repr);
    std::vector<std::string> cachedLines;
    for (const KeyOption& o : cachedKey.options)
        cachedLines.push_back(o.key + "=" + o.value);
    const std::string folderMd5 = *cachedKey.md5;

    // Same config: hit, by md5 and by options.
    auto m = matchCacheEntry(cachedKey, cachedLines, folderMd5, repr);
    EXPECT_EQ(m.verdict, KeyMatch::Verdict::Hit);
    EXPECT_TRUE(m.md5Matches && *m.md5Matches);
    // Default config: miss, clone_input named with both values.
    const auto mine = keyOf(Backend::TorchAir, {}, repr);
    m = matchCacheEntry(mine, cachedLines, folderMd5, repr);
    EXPECT_EQ(m.verdict, KeyMatch::Verdict::Miss);
    ASSERT_EQ(m.differences.size(), 1u);
    EXPECT_EQ(std::get<0>(m.differences[0]), "clone_input");
    EXPECT_EQ(std::get<1>(m.differences[0]), "0");
    EXPECT_EQ(std::get<2>(m.differences[0]), "1");
    EXPECT_TRUE(m.reprMatchesEntry && *m.reprMatchesEntry);
    // Same options, another module: a miss that is the repr's doing.
    m = matchCacheEntry(keyOf(Backend::TorchAir, { { "debug.aclgraph.clone_input", PyValue::boolean(false) } }, "N()"),
        cachedLines, folderMd5, std::string("N()"));
    EXPECT_EQ(m.verdict, KeyMatch::Verdict::Miss);
    EXPECT_TRUE(m.differences.empty());
    EXPECT_TRUE(m.reprMatchesEntry && !*m.reprMatchesEntry);
    // Without the repr, equal options are a hit "if the repr is unchanged"; unknown options: unknown.
    m = matchCacheEntry(keyOf(Backend::TorchAir, { { "debug.aclgraph.clone_input", PyValue::boolean(false) } }),
        cachedLines, folderMd5);
    EXPECT_EQ(m.verdict, KeyMatch::Verdict::Hit);
    EXPECT_FALSE(m.md5Matches);
    EXPECT_EQ(matchCacheEntry(mine, {}, folderMd5).verdict, KeyMatch::Verdict::Miss); // md5 known from the repr
    EXPECT_EQ(matchCacheEntry(keyOf(Backend::TorchAir, {}), {}, folderMd5).verdict, KeyMatch::Verdict::Unknown);
    // A hit despite a switch outside the key warns.
    auto outside = keyOf(Backend::TorchAir,
        { { "debug.aclgraph.clone_input", PyValue::boolean(false) },
            { "debug.aclgraph.remove_cat_ops", PyValue::boolean(false) } });
    m = matchCacheEntry(outside, cachedLines, folderMd5);
    EXPECT_EQ(m.verdict, KeyMatch::Verdict::Hit);
    EXPECT_NE(m.explanation.find("remove_cat_ops"), std::string::npos) << m.explanation;
}

TEST(CacheLayout, ModelFolderNames)
{
    ModelFolder m;
    ASSERT_TRUE(parseModelFolder("Model_dynamic_aclgraphcache_0123456789abcdef0123456789abcdef", m));
    EXPECT_EQ(m.className, "Model");
    EXPECT_TRUE(m.dynamic);
    EXPECT_EQ(m.kind, "aclgraphcache");
    EXPECT_EQ(m.md5, "0123456789abcdef0123456789abcdef");
    ASSERT_TRUE(parseModelFolder("My_Llama_Model_static_gecache_0123456789abcdef0123456789abcdef", m));
    EXPECT_EQ(m.className, "My_Llama_Model");
    EXPECT_FALSE(m.dynamic);
    EXPECT_EQ(m.kind, "gecache");
    ASSERT_TRUE(parseModelFolder("prompt_static_0123456789abcdef0123456789abcdef", m)); // max-autotune, no ge_cache
    EXPECT_EQ(m.kind, "");
    EXPECT_FALSE(parseModelFolder("Model_dynamic_aclgraphcache_0123", m));
    EXPECT_FALSE(
        parseModelFolder("Model_dynamic_aclgraphcache_0123456789ABCDEF0123456789ABCDEF", m)); // hexdigest is lower case
    EXPECT_FALSE(parseModelFolder("Model_eager_aclgraphcache_0123456789abcdef0123456789abcdef", m));
    EXPECT_FALSE(parseModelFolder("_dynamic_aclgraphcache_0123456789abcdef0123456789abcdef", m));
}

TEST(CacheLayout, DistFolderNames)
{
    DistFolder d;
    ASSERT_TRUE(parseDistFolder("world4global_rank3_tp_rank1_pp_rank0", d));
    EXPECT_EQ(*d.world, 4);
    EXPECT_EQ(*d.globalRank, 3);
    EXPECT_EQ(*d.tpRank, 1);
    EXPECT_EQ(*d.ppRank, 0);
    ASSERT_TRUE(parseDistFolder("tp_rank2", d));
    EXPECT_FALSE(d.world);
    EXPECT_EQ(*d.tpRank, 2);
    ASSERT_TRUE(parseDistFolder("pp_rank1", d));
    ASSERT_TRUE(parseDistFolder("world2global_rank1", d));
    EXPECT_FALSE(d.tpRank);
    for (const char* bad : { "", "prompt", "world4", "world4global_rank", "tp_rank", "tp_rank1_", "pp_rank1_tp_rank0",
             "world4global_rank0tp_rank1" })
        EXPECT_FALSE(parseDistFolder(bad, d)) << bad;
}

TEST(CacheSignature, SectionsAndInputs)
{
    const std::string text = prettyTitle("graph module")
        + "\nclass GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        return (x,)\n        "
          "\n"
        + prettyTitle("inputs")
        + "\n0:arg0_1 Parameter(linear1.weight)=Parameter containing:\ntensor([1., 2.])\n1:arg1_1 "
          "Buffer(L['self'].layers[0].buf)=FakeTensor(...)\n2:arg2_1 UserInput(0)=s0\n"
        + prettyTitle("compile options") + "\nclone_input=1\nmode=reduce-overhead";
    EXPECT_EQ(prettyTitle("inputs").size(), 100u);
    EXPECT_EQ(prettyTitle("inputs").substr(0, 48), std::string(47, '-') + "i");
    EXPECT_EQ(prettyTitle("graph module"), std::string(44, '-') + "graph module" + std::string(44, '-'));
    const Signature s = parseSignature(text);
    EXPECT_TRUE(s.wellFormed);
    EXPECT_EQ(s.graphFirstLine, 2);
    EXPECT_EQ(s.graphCode.substr(0, 10), "class Grap");
    ASSERT_EQ(s.inputs.size(), 3u);
    EXPECT_EQ(s.inputs[0].kind, "Parameter");
    EXPECT_EQ(s.inputs[0].source, "linear1.weight");
    EXPECT_EQ(s.inputs[0].example, "Parameter containing:\ntensor([1., 2.])");
    EXPECT_EQ(s.inputs[1].source, "L['self'].layers[0].buf");
    EXPECT_EQ(s.inputs[2].kind, "UserInput");
    EXPECT_EQ(s.inputs[2].name, "arg2_1");
    EXPECT_EQ(s.options, (std::vector<std::string> { "clone_input=1", "mode=reduce-overhead" }));
    EXPECT_FALSE(parseSignature("no titles").wellFormed);
    EXPECT_FALSE(parseSignature("no titles").problems.empty());
}

} // namespace
