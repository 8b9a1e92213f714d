// NAME=VALUE settings as typed (config/setting_text.h): reading, writing back, and merging two
// lists of them with either spelling of an option.
#include "engine/config/options.h"
#include "engine/config/setting_text.h"

#include <gtest/gtest.h>

namespace {

using namespace engine;
using namespace engine::config;

TEST(SettingText, ParsesNameAndPythonLiteral)
{
    auto s = parseSetting("debug.aclgraph.clone_input=false");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->first, "debug.aclgraph.clone_input");
    EXPECT_EQ(s->second.kind, PyValue::Kind::Bool);
    EXPECT_EQ(settingText(*s), "debug.aclgraph.clone_input=False");
    EXPECT_EQ(settingText(*parseSetting("use_graph_pool=(0, 3)")), "use_graph_pool=(0, 3)");
    EXPECT_EQ(settingText(*parseSetting("capture_error_mode=relaxed")), "capture_error_mode='relaxed'");
}

TEST(SettingText, Errors)
{
    auto noEq = parseSetting("clone_input");
    ASSERT_FALSE(noEq.ok());
    EXPECT_EQ(noEq.error().toString(), "expects NAME=VALUE, got 'clone_input'");
    EXPECT_FALSE(parseSetting("=1").ok());
    auto bad = parseSetting("capture_limit=[1,");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().context, "capture_limit=[1,");
}

TEST(SettingText, MergeLaterWinsAcrossSpellings)
{
    const std::vector<Setting> base = { { "clone_input", PyValue::boolean(false) },
        { "debug.aclgraph.static_capture_size_limit", PyValue::integer(8) } };
    const std::vector<Setting> later = { { "debug.aclgraph.clone_input", PyValue::boolean(true) },
        { "experimental_config.frozen_parameter", PyValue::boolean(true) } };
    const auto merged = mergeSettings(base, later);
    ASSERT_EQ(merged.size(), 3u);
    EXPECT_EQ(settingText(merged[0]), "debug.aclgraph.static_capture_size_limit=8");
    EXPECT_EQ(settingText(merged[1]), "debug.aclgraph.clone_input=True");
    EXPECT_EQ(settingText(merged[2]), "experimental_config.frozen_parameter=True");
    EXPECT_EQ(optionIndex("clone_input"), optionIndex("debug.aclgraph.clone_input"));
    EXPECT_EQ(optionIndex("no_such_option"), -1);

    // Names outside the table are merged by name.
    const auto unknown = mergeSettings({ { "x.y", PyValue::integer(1) } }, { { "x.y", PyValue::integer(2) } });
    ASSERT_EQ(unknown.size(), 1u);
    EXPECT_EQ(unknown[0].second.i, 2);

    EXPECT_TRUE(sameSettings(merged, { merged[2], merged[0], merged[1] }));
    EXPECT_FALSE(sameSettings(merged, { merged[0], merged[1] }));
    // True and 1 are different settings: npugraph_ex reads them differently.
    EXPECT_FALSE(
        sameSettings({ { "clone_input", PyValue::boolean(true) } }, { { "clone_input", PyValue::integer(1) } }));
}

} // namespace
