#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "bench/cost.hpp"
#include "bench/model_breakdown.hpp"
#include "bench/repeats.hpp"
#include "bench/summary_json.hpp"
#include "bench/sweep_report.hpp"
#include "bench/timeline_report.hpp"
#include "report/document.hpp"
#include "report/figures.hpp"
#include "report/html_report.hpp"
#include "report/merge.hpp"
#include "report/svg_chart.hpp"
#include "report/tables.hpp"

namespace infergate::report {
namespace {

constexpr std::int64_t ms = 1'000'000;

// `n` requests whose TTFT grows with the index from `base_ms`, ten tokens each.
std::vector<bench::RequestRecord> records(int n, double base_ms, std::int64_t start_ms = 0) {
  std::vector<bench::RequestRecord> out;
  for (int i = 0; i < n; ++i) {
    bench::RequestRecord r;
    r.due_ns = r.dispatch_ns = (start_ms + i * 10) * ms;
    r.first_token_ns = r.due_ns + static_cast<std::int64_t>((base_ms + i * 0.37) * 1e6);
    for (int k = 0; k < 10; ++k) {
      r.text_events.push_back({r.first_token_ns + k * 2 * ms, 3});
    }
    r.last_byte_ns = r.text_events.back().ns;
    r.usage = openai::Usage{20, 10};
    out.push_back(r);
  }
  return out;
}

TEST(ReportMerge, PercentilesOfMergedWorkersAreThoseOfThePooledRequests) {
  auto a = records(400, 5);
  const auto b = records(600, 40);
  a[3].called_tool = a[7].called_tool = true;
  const bench::BenchSummary merged =
      merge_summaries({bench::summarize_run(a), bench::summarize_run(b)}, Pooling::concurrent);
  EXPECT_EQ(merged.tool_call_answers, 2);
  auto all = a;
  all.insert(all.end(), b.begin(), b.end());
  const bench::BenchSummary pooled = bench::summarize_run(all);
  EXPECT_EQ(merged.completed, 1000u);
  EXPECT_EQ(merged.output_tokens, 10000);
  for (auto [m, p] : {std::pair{merged.ttft_ms.p50, pooled.ttft_ms.p50},
                      {merged.ttft_ms.p99, pooled.ttft_ms.p99},
                      {merged.e2e_ms.p90, pooled.e2e_ms.p90},
                      {merged.itl_ms.p99, pooled.itl_ms.p99}}) {
    EXPECT_NEAR(m, p, 0.01 * p);
  }
  EXPECT_DOUBLE_EQ(merged.ttft_ms.max, pooled.ttft_ms.max);
  EXPECT_NEAR(merged.ttft_ms.mean, pooled.ttft_ms.mean, 1e-9 * pooled.ttft_ms.mean);
  // Workers ran side by side: their rates add.
  EXPECT_NEAR(merged.output_tokens_per_s,
              bench::summarize_run(a).output_tokens_per_s + bench::summarize_run(b).output_tokens_per_s, 1e-9);
}

TEST(ReportMerge, AMixedModelRunsWorkersMergeEachModelsFigures) {
  auto worker = [](const std::string& path, int n, double base_ms) {
    auto answers = records(n, base_ms);
    for (std::size_t i = 0; i < answers.size(); ++i) {
      answers[i].model = static_cast<std::uint32_t>(i % 2);
    }
    const std::vector<std::string> models{"a", "b"};
    const bench::BenchSummary summary = bench::summarize_run(answers);
    const boost::json::object extra{
        {"by_model", bench::model_breakdown_json(bench::summarize_by_model(answers, models))}};
    RunDocument d =
        document_from_json(bench::summary_document({{"model", "a (50%) + b (50%)"}}, &summary, extra), path);
    d.path = path;
    return d;
  };
  const boost::json::object merged = merge_documents({worker("w0.json", 100, 5), worker("w1.json", 60, 50)});
  const bench::ModelSummaries by_model = bench::model_breakdown_from_json(merged.at("by_model"));
  ASSERT_EQ(by_model.size(), 2u);
  EXPECT_EQ(by_model[0].first, "a");
  EXPECT_EQ(by_model[0].second.completed, 80u);
  EXPECT_EQ(by_model[1].second.completed, 80u);
  EXPECT_EQ(by_model[1].second.output_tokens, 800);
  // One model's percentiles come from its pooled histograms: w1's slower half is in both.
  EXPECT_GT(by_model[0].second.ttft_ms.p99, 50);
  EXPECT_LT(by_model[0].second.ttft_ms.p50, by_model[0].second.ttft_ms.p99);
  // Single-model workers merge without a breakdown.
  const bench::BenchSummary one = bench::summarize_run(records(10, 5));
  const boost::json::object plain = merge_documents({document_from_json(bench::summary_document({}, &one), "x")});
  EXPECT_FALSE(plain.contains("by_model"));
}

// Workers held to SLOs merge into one goodput, and with a mix one a model, each judged on the
// pooled histograms; workers held to other SLOs are refused.
TEST(ReportMerge, WorkersGoodputsPoolTheirGoodRequestsAndAreJudgedTogether) {
  const std::vector<bench::Slo> slos = bench::parse_slos("ttft_p99=30ms");
  auto worker = [](const std::string& path, int n, double base_ms, const std::vector<bench::Slo>& held) {
    auto answers = records(n, base_ms);
    for (std::size_t i = 0; i < answers.size(); ++i) {
      answers[i].model = static_cast<std::uint32_t>(i % 2);
    }
    const std::vector<std::string> models{"a", "b"};
    const bench::BenchSummary summary = bench::summarize_run(answers);
    const bench::ModelSummaries by_model = bench::summarize_by_model(answers, models);
    boost::json::object extra{
        {"by_model", bench::model_breakdown_json(by_model, bench::goodput_by_model(answers, by_model, held), held)}};
    if (!held.empty()) {
      extra["goodput"] = bench::goodput_json(bench::measure_goodput(answers, summary, held), held);
    }
    RunDocument d = document_from_json(bench::summary_document({}, &summary, extra), path);
    d.path = path;
    return d;
  };
  const RunDocument fast = worker("w0.json", 60, 5, slos);  // TTFT 5 to 27 ms
  const RunDocument slow = worker("w1.json", 20, 50, slos);
  ASSERT_TRUE(fast.raw.at("goodput").at("met").as_bool());
  const boost::json::object merged = merge_documents({fast, slow});
  const bench::Goodput pooled = bench::goodput_from_json(merged.at("goodput").as_object());
  EXPECT_EQ(pooled.good, fast.raw.at("goodput").at("good_requests").to_number<std::uint64_t>() +
                             slow.raw.at("goodput").at("good_requests").to_number<std::uint64_t>());
  EXPECT_FALSE(pooled.met);  // a quarter of the pooled requests are w1's, over 50 ms
  const auto& b = merged.at("by_model").at("b").at("goodput").as_object();
  EXPECT_FALSE(bench::goodput_from_json(b).met);
  EXPECT_EQ(bench::goodput_slos(b)[0].to_string(), "ttft_p99=30ms");
  EXPECT_EQ(bench::goodput_from_json(merged.at("by_model").at("a").at("goodput").as_object()).good +
                bench::goodput_from_json(b).good,
            pooled.good);
  try {
    merge_documents({fast, worker("w2.json", 20, 5, bench::parse_slos("ttft_p50=30ms"))});
    ADD_FAILURE() << "workers held to other SLOs merged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("w2.json: its goodput was held to ttft_p50=30ms"), std::string::npos)
        << e.what();
  }
  // A part whose model entry lost its goodput is named, not quietly left out of the pool.
  RunDocument damaged = worker("w5.json", 20, 5, slos);
  damaged.raw["by_model"].as_object()["b"].as_object().erase("goodput");
  try {
    merge_documents({fast, damaged});
    ADD_FAILURE() << "a part without its model's goodput merged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("w5.json: its b has no goodput"), std::string::npos) << e.what();
  }
  // Workers without SLOs merge without a goodput.
  EXPECT_FALSE(merge_documents({worker("w3.json", 10, 5, {}), worker("w4.json", 10, 5, {})}).contains("goodput"));
}

// Priced workers merge into one cost: the pooled run's tokens at their prices, and by the hour at
// the rate they sustained together (their steady states' sum); workers priced apart are refused.
TEST(ReportMerge, WorkersCostsArePricedOverThePooledRun) {
  auto worker = [](const std::string& path, const bench::Pricing& pricing) {
    const auto answers = records(400, 5);
    const bench::BenchSummary summary = bench::summarize_run(answers);
    const auto steady = bench::steady_state(answers);
    const double rate = bench::sustained_token_rate(summary, steady);
    boost::json::object extra{{"cost", bench::cost_json(pricing, bench::measure_cost(pricing, summary, rate))}};
    if (steady) {
      extra["steady_state"] = bench::steady_state_json(*steady);
    }
    RunDocument d = document_from_json(bench::summary_document({}, &summary, extra), path);
    d.path = path;
    return d;
  };
  const bench::Pricing pricing{0.1, 0.4, 3.6};
  const RunDocument a = worker("w0.json", pricing);
  const RunDocument b = worker("w1.json", pricing);
  ASSERT_TRUE(a.steady.has_value());
  const boost::json::object merged = merge_documents({a, b});
  const bench::Cost cost = bench::cost_from_json(merged.at("cost").as_object());
  const bench::Cost one = bench::cost_from_json(a.raw.at("cost").as_object());
  EXPECT_NEAR(*cost.run_usd, 2 * *one.run_usd, 1e-15);
  EXPECT_NEAR(*cost.per_million_output_by_tokens, *one.per_million_output_by_tokens, 1e-12);
  EXPECT_DOUBLE_EQ(cost.output_tokens_per_s, a.steady->output_tokens_per_s + b.steady->output_tokens_per_s);
  EXPECT_NEAR(*cost.per_million_output_by_hour, *one.per_million_output_by_hour / 2, 1e-12);
  EXPECT_EQ(bench::pricing_from_cost_json(merged.at("cost").as_object()).hourly, 3.6);
  try {
    merge_documents({a, worker("w2.json", bench::Pricing{0.1, 0.5, 3.6})});
    ADD_FAILURE() << "workers priced apart merged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("w2.json: its cost has other prices"), std::string::npos) << e.what();
  }
}

TEST(ReportMerge, MergedWorkersKeepTheirMorePercentiles) {
  const auto a = records(400, 5);
  const auto b = records(600, 40);
  const std::vector<double> more{25, 99.9};
  const bench::BenchSummary merged =
      merge_summaries({bench::summarize_run(a, more), bench::summarize_run(b, more)}, Pooling::concurrent);
  auto all = a;
  all.insert(all.end(), b.begin(), b.end());
  const bench::BenchSummary pooled = bench::summarize_run(all, more);
  for (const double p : more) {
    EXPECT_NEAR(*merged.ttft_ms.at(p), *pooled.ttft_ms.at(p), 0.01 * *pooled.ttft_ms.at(p)) << p;
    EXPECT_NEAR(*merged.e2e_ms.at(p), *pooled.e2e_ms.at(p), 0.01 * *pooled.e2e_ms.at(p)) << p;
  }
  // Lag has no histogram: the worst part's figure.
  EXPECT_DOUBLE_EQ(*merged.scheduling_lag_ms.at(99.9),
                   std::max(*bench::summarize_run(a, more).scheduling_lag_ms.at(99.9),
                            *bench::summarize_run(b, more).scheduling_lag_ms.at(99.9)));
}

// Workers asked for different tails: each one any worker asked for comes from the pooled
// histograms (it had been only the first worker's).
TEST(ReportMerge, EveryWorkersMorePercentilesComeFromThePooledHistograms) {
  auto a = records(400, 5);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i].dispatch_ns = a[i].due_ns + static_cast<std::int64_t>(i % 10) * ms;  // lags of up to 9 ms
  }
  const auto b = records(600, 40);
  const bench::BenchSummary first = bench::summarize_run(a, std::vector<double>{99.9});
  const bench::BenchSummary second = bench::summarize_run(b, std::vector<double>{25, 99.9});
  const bench::BenchSummary merged = merge_summaries({first, second}, Pooling::concurrent);
  ASSERT_EQ(merged.ttft_ms.more.size(), 2u);
  EXPECT_EQ(merged.ttft_ms.more[0].p, 25);
  EXPECT_EQ(merged.ttft_ms.more[1].p, 99.9);
  auto all = a;
  all.insert(all.end(), b.begin(), b.end());
  const bench::BenchSummary pooled = bench::summarize_run(all, std::vector<double>{25});
  EXPECT_NEAR(*merged.ttft_ms.at(25), *pooled.ttft_ms.at(25), 0.01 * *pooled.ttft_ms.at(25));
  // The first worker has no p25 lag: its max stands in, a bound on it.
  EXPECT_DOUBLE_EQ(first.scheduling_lag_ms.max, 9);
  EXPECT_DOUBLE_EQ(*merged.scheduling_lag_ms.at(25),
                   std::max(first.scheduling_lag_ms.max, *second.scheduling_lag_ms.at(25)));
}

TEST(ReportDocument, MorePercentilesReadBackAscending) {
  const std::vector<double> more{0.5, 99.9, 99.99};
  const bench::BenchSummary s = bench::summarize_run(records(50, 5), more);
  const boost::json::object written = bench::summary_json(s);
  EXPECT_TRUE(written.at("ttft_ms").as_object().contains("p99.99"));
  const auto back = bench::summary_from_json(written);
  ASSERT_EQ(back.ttft_ms.more.size(), 3u);
  for (std::size_t i = 0; i < more.size(); ++i) {
    EXPECT_EQ(back.ttft_ms.more[i].p, more[i]);
    EXPECT_DOUBLE_EQ(back.ttft_ms.more[i].value, s.ttft_ms.more[i].value);
  }
  EXPECT_TRUE(bench::summary_from_json(bench::summary_json(bench::summarize_run(records(5, 5)))).ttft_ms.more.empty());
}

TEST(ReportDocument, ASummaryReadsBackAsWritten) {
  const bench::BenchSummary s = bench::summarize_run(records(50, 5));
  const auto back = bench::summary_from_json(bench::summary_json(s));
  EXPECT_EQ(back.completed, s.completed);
  EXPECT_DOUBLE_EQ(back.ttft_ms.p99, s.ttft_ms.p99);
  EXPECT_DOUBLE_EQ(back.output_tokens_per_s, s.output_tokens_per_s);
  EXPECT_EQ(back.ttft_hist.count(), 50u);
  EXPECT_EQ(back.token_source, "usage");

  const RunDocument d = document_from_json(bench::summary_document({{"label", "x"}}, &s), "x");
  EXPECT_EQ(d.kind, RunDocument::Kind::single);
  EXPECT_EQ(d.summary.completed, 50u);
  EXPECT_THROW(document_from_json(boost::json::object{{"schema", "other"}}, "y"), std::runtime_error);
  EXPECT_THROW(document_from_json(boost::json::object{{"schema", "infergate.bench/1"}}, "y"), std::runtime_error);
}

RunDocument single_run(const std::string& label, double base_ms) {
  const bench::BenchSummary summary = bench::summarize_run(records(300, base_ms));
  return document_from_json(bench::summary_document({}, &summary), label);
}

TEST(ReportCompare, FlagsOnlyDifferencesBeyondBothIntervals) {
  const RunDocument fast = single_run("fast", 5);
  const RunDocument same = single_run("same", 5);
  const RunDocument slow = single_run("slow", 50);
  const Comparison c = compare({fast, same, slow});
  ASSERT_EQ(c.labels.size(), 3u);
  std::size_t ttft = 0;
  while (c.figures[0][ttft].name != "ttft_ms_p50") {
    ++ttft;
  }
  ASSERT_TRUE(c.figures[0][ttft].interval.has_value());
  EXPECT_LE(c.figures[0][ttft].interval->low, c.figures[0][ttft].value);
  EXPECT_GE(c.figures[0][ttft].interval->high, c.figures[0][ttft].value);
  EXPECT_FALSE(c.differs[1][ttft]);
  EXPECT_TRUE(c.differs[2][ttft]);
  EXPECT_GT(*c.ratio[2][ttft], 1.5);

  const std::string csv = csv_report({fast, slow});
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  EXPECT_TRUE(csv.starts_with("label,kind,level,model,completed"));
  const std::string md = markdown_report({fast, slow});
  EXPECT_NE(md.find("| TTFT p50 (ms) |"), std::string::npos);
  EXPECT_NE(md.find("x *"), std::string::npos);
}

// Runs measured with SLOs and prices are compared on their goodput and their cost too, where every
// one of them has it.
TEST(ReportCompare, GoodputAndCostAreComparedWhereEveryRunHasThem) {
  const std::vector<bench::Slo> slos = bench::parse_slos("ttft_p50=20ms");
  auto priced = [&](const std::string& label, double base_ms, const bench::Pricing& pricing) {
    const auto answers = records(100, base_ms);
    const bench::BenchSummary summary = bench::summarize_run(answers);
    const boost::json::object extra{
        {"goodput", bench::goodput_json(bench::measure_goodput(answers, summary, slos), slos)},
        {"cost", bench::cost_json(pricing, bench::measure_cost(pricing, summary, summary.output_tokens_per_s))}};
    return document_from_json(bench::summary_document({}, &summary, extra), label);
  };
  const RunDocument api = priced("api", 5, bench::Pricing{0.1, 0.4, std::nullopt});
  const RunDocument gpu = priced("gpu", 5, bench::Pricing{std::nullopt, std::nullopt, 3.6});
  const Comparison c = compare({api, gpu});
  auto value_of = [&](std::size_t d, const std::string& name) -> std::optional<double> {
    for (const Figure& f : c.figures[d]) {
      if (f.name == name) {
        return f.value;
      }
    }
    return std::nullopt;
  };
  EXPECT_EQ(value_of(0, "goodput_requests_per_s"), api.raw.at("goodput").at("requests_per_s").as_double());
  EXPECT_EQ(value_of(0, "usd_per_million_tokens"),
            api.raw.at("cost").at("per_million_output_tokens_by_tokens").as_double());
  EXPECT_EQ(value_of(1, "usd_per_million_tokens"),
            gpu.raw.at("cost").at("per_million_output_tokens_by_hour").as_double());
  ASSERT_EQ(c.figures[0].size(), c.figures[1].size());
  EXPECT_EQ(c.figures[0].back().title, "$ per M output tokens");
  EXPECT_FALSE(c.figures[0].back().higher_is_better);
  // The CSV gives each its columns; a run without them leaves them empty.
  const std::string csv = csv_report({api, gpu, single_run("plain", 5)});
  EXPECT_NE(csv.find(",e2e_ms_max,goodput_requests_per_s,usd_per_million_tokens,knee\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(fmt::format(",{},{},0\n", api.raw.at("goodput").at("requests_per_s").as_double(),
                                 gpu.raw.at("cost").at("per_million_output_tokens_by_hour").as_double())),
            std::string::npos)
      << csv;  // gpu's row: its goodput rate is api's (the same answers)
  EXPECT_TRUE(csv.ends_with(",,,0\n")) << csv;
  // Repeated runs give theirs as the mean over the runs, with its interval.
  const bench::BenchSummary each = bench::summarize_run(records(100, 5));
  bench::RepeatedFigures figures = bench::repeated_figures({each, each}, {100, 100});
  figures.names.emplace_back("goodput_requests_per_s");
  figures.spreads.push_back(bench::spread({10, 14}));
  figures.names.emplace_back("usd_per_million_tokens");
  figures.spreads.push_back(bench::spread({2, 2}));
  const boost::json::object run{{"summary", bench::summary_json(each)}};
  boost::json::object runs = bench::repeated_json(figures);
  runs["runs"] = boost::json::array{run, run};
  const RunDocument repeated = document_from_json(bench::summary_document({}, nullptr, {{"runs", runs}}), "repeated");
  const Comparison with_runs = compare({api, repeated});
  const Figure& good = with_runs.figures[1][with_runs.figures[1].size() - 2];
  EXPECT_EQ(good.name, "goodput_requests_per_s");
  EXPECT_DOUBLE_EQ(good.value, 12);
  ASSERT_TRUE(good.interval.has_value());
  EXPECT_LT(good.interval->low, 10);
  // One run without them: neither row.
  const Comparison plain = compare({api, single_run("plain", 5)});
  for (const Figure& f : plain.figures[0]) {
    EXPECT_NE(f.name, "goodput_requests_per_s");
    EXPECT_NE(f.name, "usd_per_million_tokens");
  }
}

RunDocument single_run_with(const std::string& label, double base_ms, const std::vector<double>& more) {
  const bench::BenchSummary summary = bench::summarize_run(records(300, base_ms), more);
  return document_from_json(bench::summary_document({}, &summary), label);
}

std::size_t figure_index(const std::vector<Figure>& figures, const std::string& name) {
  return std::find_if(figures.begin(), figures.end(), [&](const Figure& f) { return f.name == name; }) -
         figures.begin();
}

TEST(ReportCompare, PercentilesEveryRunHoldsAreFiguresAfterEachP99) {
  const RunDocument a = single_run_with("a", 5, {99.9});
  const RunDocument b = single_run_with("b", 50, {25, 99.9});
  const Comparison both = compare({a, b});
  const std::vector<Figure>& f = both.figures[1];
  const std::size_t tail = figure_index(f, "ttft_ms_p99.9");
  ASSERT_LT(tail, f.size());
  EXPECT_EQ(tail, figure_index(f, "ttft_ms_p99") + 1);
  EXPECT_EQ(figure_index(f, "e2e_ms_p99.9"), figure_index(f, "e2e_ms_p99") + 1);
  EXPECT_EQ(f[tail].title, "TTFT p99.9 (ms)");
  EXPECT_DOUBLE_EQ(f[tail].value, *b.summary.ttft_ms.at(99.9));
  ASSERT_TRUE(f[tail].interval.has_value());
  EXPECT_LE(f[tail].interval->low, f[tail].value);
  EXPECT_GE(f[tail].interval->high, f[tail].value);
  EXPECT_TRUE(both.differs[1][tail]);
  EXPECT_EQ(figure_index(f, "ttft_ms_p25"), f.size());  // only b asked for p25
  EXPECT_EQ(both.figures[0].size(), f.size());

  const Comparison with_plain = compare({a, single_run("plain", 5)});
  EXPECT_EQ(figure_index(with_plain.figures[0], "ttft_ms_p99.9"), with_plain.figures[0].size());
  EXPECT_NE(markdown_report({a, b}).find("| TTFT p99.9 (ms) |"), std::string::npos);
}

TEST(ReportCompare, RepeatedRunsGiveEachFigureAsTheirMeanWithStudentsInterval) {
  const std::vector<double> more{99.9};
  std::vector<bench::BenchSummary> parts;
  boost::json::array each;
  for (int k = 0; k < 3; ++k) {
    parts.push_back(bench::summarize_run(records(100, 5 + k), more));
    each.push_back(boost::json::object{{"summary", bench::summary_json(parts.back())}});
  }
  boost::json::object runs = bench::repeated_json(bench::repeated_figures(parts, {0, 0, 0}));
  runs["runs"] = std::move(each);
  const RunDocument d = document_from_json(bench::summary_document({}, nullptr, {{"runs", runs}}), "runs");
  ASSERT_EQ(d.kind, RunDocument::Kind::runs);
  const std::vector<Figure> f = headline_figures(d, shared_percentiles({d}));
  const std::size_t tail = figure_index(f, "ttft_ms_p99.9");
  ASSERT_LT(tail, f.size());
  const auto& figure = runs.at("figures").at("ttft_ms_p99.9");
  const auto& ci = figure.at("ci95").as_array();
  ASSERT_TRUE(f[tail].interval.has_value());
  EXPECT_DOUBLE_EQ(f[tail].interval->low, ci[0].as_double());
  EXPECT_DOUBLE_EQ(f[tail].interval->high, ci[1].as_double());
  // The figure is what the interval is of: the mean over the runs, not the pooled requests' value.
  EXPECT_DOUBLE_EQ(f[tail].value, figure.at("mean").as_double());
  for (const Figure& each : f) {
    if (each.interval) {
      EXPECT_LE(each.interval->low, each.value) << each.name;
      EXPECT_GE(each.interval->high, each.value) << each.name;
    }
  }
}

// Embeddings runs generated nothing: compared, they are rated by the input tokens they took in, and
// carry no TPOT or ITL figures (zeros that would compare as equal).
TEST(ReportCompare, PromptOnlyRunsCompareOnInputTokensWithoutDecodeFigures) {
  auto embeddings = [](const std::string& label, double base_ms) {
    std::vector<bench::RequestRecord> answers = records(100, base_ms);
    for (bench::RequestRecord& r : answers) {
      r.text_events.clear();
      r.last_byte_ns = r.first_token_ns;
      r.usage = openai::Usage{512, 0};
    }
    const bench::BenchSummary summary = bench::summarize_run(answers);
    return document_from_json(bench::summary_document({}, &summary), label);
  };
  const RunDocument a = embeddings("a", 5);
  const Comparison c = compare({a, embeddings("b", 10)});
  const std::vector<Figure>& f = c.figures[0];
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f.front().name, "input_tokens_per_s");
  EXPECT_DOUBLE_EQ(f.front().value, a.summary.total_tokens_per_s);
  EXPECT_GT(f.front().value, 0);
  EXPECT_EQ(figure_index(f, "tpot_ms_p50"), f.size());
  EXPECT_EQ(figure_index(f, "itl_ms_p50"), f.size());
  EXPECT_LT(figure_index(f, "ttft_ms_p99"), f.size());
  EXPECT_LT(figure_index(f, "e2e_ms_p99"), f.size());
  // Beside a generating run both keep the same figures, output tok/s first.
  const Comparison mixed = compare({a, single_run("chat", 5)});
  EXPECT_EQ(mixed.figures[0].front().name, "output_tokens_per_s");
  EXPECT_EQ(mixed.figures[0].size(), mixed.figures[1].size());
}

// `n` embeddings answered whole, one every 10 ms, each taking `answer_ms` for its 256 to 767 prompt
// tokens (512 on average).
std::vector<bench::RequestRecord> embedding_answers(int n, std::int64_t answer_ms) {
  std::vector<bench::RequestRecord> out;
  for (int i = 0; i < n; ++i) {
    bench::RequestRecord r;
    r.due_ns = r.dispatch_ns = r.sent_ns = i * 10 * ms;
    r.first_token_ns = r.last_byte_ns = r.dispatch_ns + answer_ms * ms;
    r.usage = openai::Usage{256 + (i * 37) % 512, 0};
    out.push_back(r);
  }
  return out;
}

// A single embeddings run's input rate is its steady state's, with the interval its per-second
// input rates give (as an output rate's is).
TEST(ReportCompare, APromptOnlyRunsSteadyInputRateHasItsPerSecondInterval) {
  const std::vector<bench::RequestRecord> answers = embedding_answers(500, 25);
  const bench::BenchSummary summary = bench::summarize_run(answers);
  const auto steady = bench::steady_state(answers);
  ASSERT_TRUE(steady.has_value());
  const boost::json::object extra{{"steady_state", bench::steady_state_json(*steady)},
                                  {"timeseries", bench::time_series_json(bench::time_series(answers))}};
  const RunDocument d = document_from_json(bench::summary_document({}, &summary, extra), "e");
  const Figure rate = compare({d}).figures[0].front();
  EXPECT_EQ(rate.title, "input tok/s (steady)");
  EXPECT_DOUBLE_EQ(rate.value, bench::input_token_rate(steady->summary));
  EXPECT_NEAR(rate.value, 51200, 2500);  // 100 prompts of about 512 tokens a second
  ASSERT_TRUE(rate.interval.has_value());
  EXPECT_LT(rate.interval->low, rate.value);
  EXPECT_GT(rate.interval->high, rate.value);
}

// Workers' time series add second by second, input tokens too; results a day apart are not one run.
TEST(ReportMerge, WorkersInputTokensAddSecondBySecond) {
  auto worker = [](const std::string& path, double started_at_ms) {
    const std::vector<bench::RequestRecord> answers = embedding_answers(190, 25);  // two seconds' worth
    const bench::BenchSummary summary = bench::summarize_run(answers);
    const boost::json::object extra{{"timeseries", bench::time_series_json(bench::time_series(answers))}};
    RunDocument d =
        document_from_json(bench::summary_document({{"started_at_ms", started_at_ms}}, &summary, extra), path);
    d.path = path;
    return d;
  };
  const RunDocument a = worker("a.json", 5000);
  const RunDocument b = worker("b.json", 6000);  // a second later
  const RunDocument merged = document_from_json(merge_documents({a, b}), "merged");
  ASSERT_TRUE(merged.series.has_value());
  const std::vector<double>& in = merged.series->input_tokens_per_s;
  ASSERT_EQ(in.size(), 3u);
  EXPECT_DOUBLE_EQ(in[0], a.series->input_tokens_per_s[0]);
  EXPECT_DOUBLE_EQ(in[1], a.series->input_tokens_per_s[1] + b.series->input_tokens_per_s[0]);
  EXPECT_DOUBLE_EQ(in[2], b.series->input_tokens_per_s[1]);
  try {
    merge_documents({a, worker("c.json", 5000 + 2 * 86400e3)});
    ADD_FAILURE() << "runs two days apart merged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("c.json started 172800 s after a.json"), std::string::npos) << e.what();
  }
}

// An embeddings sweep's own tables (Markdown, HTML) rate each level by input tok/s, without TPOT
// columns or charts; the CSV gives every row its input rate.
TEST(ReportTables, APromptOnlySweepShowsItsInputRateAndNoDecodeColumns) {
  std::vector<bench::SweepPoint> points;
  for (const auto& [level, answer_ms] : {std::pair{1.0, 4}, {2.0, 6}}) {
    bench::SweepPoint p;
    p.level = level;
    p.summary = bench::summarize_run(embedding_answers(50, answer_ms));
    points.push_back(p);
  }
  const boost::json::object extra{{"sweep", bench::sweep_json(bench::parse_sweep("concurrency=1,2"), points,
                                                              std::nullopt, bench::KneeRule{}, {}, {})}};
  const RunDocument d = document_from_json(bench::summary_document({}, nullptr, extra), "e");
  const std::string md = markdown_report({d});
  EXPECT_NE(md.find("| concurrency | req/s | input tok/s | TTFT p50 | TTFT p99 | failed | |"), std::string::npos) << md;
  EXPECT_NE(md.find(format_number(bench::input_token_rate(points[1].summary))), std::string::npos) << md;
  EXPECT_EQ(md.find("TPOT"), std::string::npos) << md;
  const std::string html = html_report({d});
  EXPECT_NE(html.find("<th>input tok/s</th>"), std::string::npos);
  EXPECT_NE(html.find("Input throughput against load"), std::string::npos);
  EXPECT_EQ(html.find("TPOT"), std::string::npos);
  EXPECT_EQ(html.find("data-chart=\"itl-histogram\""), std::string::npos);
  const std::string csv = csv_report({d});
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",steady_output_tokens_per_s,input_tokens_per_s,steady_input_tokens_per_s,"),
            std::string::npos);
  EXPECT_NE(csv.find(fmt::format(",{},", bench::input_token_rate(points[0].summary))), std::string::npos) << csv;
}

TEST(ReportTables, AMixedModelRunHasATableOfItsModelsAndItsRepeatsPoolThem) {
  auto answers = records(40, 5);
  for (std::size_t i = 0; i < answers.size(); i += 2) {
    answers[i].model = 1;
  }
  const std::vector<std::string> models{"fast|one", "slow"};
  const bench::BenchSummary summary = bench::summarize_run(answers);
  const boost::json::value by_model = bench::model_breakdown_json(bench::summarize_by_model(answers, models));
  const RunDocument d = document_from_json(bench::summary_document({}, &summary, {{"by_model", by_model}}), "mix");
  ASSERT_EQ(d.by_model.size(), 2u);
  const std::string md = markdown_report({d});
  EXPECT_NE(md.find("### mix: by model\n\n| model | completed | failed | req/s | output tok/s | TTFT p50 (ms) | TTFT "
                    "p99 (ms) | TPOT p50 (ms) | TPOT p99 (ms) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| fast\\|one | 20 | 0 |"), std::string::npos) << md;
  const std::string html = html_report({d});
  EXPECT_NE(html.find("<h2>mix: by model</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td>slow</td><td>20</td>"), std::string::npos);

  const boost::json::object run{{"summary", bench::summary_json(summary)}, {"by_model", by_model}};
  const RunDocument repeated = document_from_json(
      bench::summary_document({}, nullptr, {{"runs", boost::json::object{{"runs", boost::json::array{run, run}}}}}),
      "repeated");
  ASSERT_EQ(repeated.by_model.size(), 2u);
  EXPECT_EQ(repeated.by_model[0].first, "fast|one");
  EXPECT_EQ(repeated.by_model[1].second.completed, 40u);

  const RunDocument one = document_from_json(bench::summary_document({}, &summary), "one");
  EXPECT_TRUE(one.by_model.empty());
  EXPECT_EQ(markdown_report({one}).find("by model"), std::string::npos);
}

// A mixed-model sweep's models are read at each level: the report's table of them is the knee's
// level, and the CSV follows each level's row with one row a model.
TEST(ReportTables, AMixedModelSweepsModelTableIsItsKneesAndItsCsvHasARowAModel) {
  const std::vector<std::string> models{"small", "large,slow"};
  std::vector<bench::SweepPoint> points;
  for (const auto& [level, base_ms] : {std::pair{1.0, 4.0}, {2.0, 8.0}}) {
    auto answers = records(40, base_ms);
    for (std::size_t i = 0; i < answers.size(); i += 4) {
      answers[i].model = 1;
    }
    bench::SweepPoint p;
    p.level = level;
    p.summary = bench::summarize_run(answers);
    p.by_model = bench::summarize_by_model(answers, models);
    points.push_back(p);
  }
  const bench::Knee knee{0, "throughput rose 0%"};
  const boost::json::object extra{
      {"sweep", bench::sweep_json(bench::parse_sweep("concurrency=1,2"), points, knee, bench::KneeRule{}, {}, {})}};
  const RunDocument d = document_from_json(bench::summary_document({}, nullptr, extra), "mixed");
  ASSERT_EQ(d.levels.size(), 2u);
  ASSERT_EQ(d.levels[1].by_model.size(), 2u);
  EXPECT_EQ(d.levels[1].by_model[1].second.completed, 10u);
  ASSERT_EQ(d.by_model.size(), 2u);
  EXPECT_DOUBLE_EQ(d.by_model[0].second.ttft_ms.p50, points[0].by_model[0].second.ttft_ms.p50);
  const std::string md = markdown_report({d});
  EXPECT_NE(md.find("### mixed: by model, concurrency 1 (the knee)\n"), std::string::npos) << md;

  const std::string csv = csv_report({d});
  std::vector<std::string> lines;
  for (std::size_t at = 0, end = 0; (end = csv.find('\n', at)) != std::string::npos; at = end + 1) {
    lines.push_back(csv.substr(at, end - at));
  }
  ASSERT_EQ(lines.size(), 7u) << csv;  // the header, then three rows at each level
  EXPECT_TRUE(lines[1].starts_with("mixed,sweep,1,,40,")) << lines[1];
  EXPECT_TRUE(lines[2].starts_with("mixed,sweep,1,small,30,")) << lines[2];
  EXPECT_TRUE(lines[3].starts_with("mixed,sweep,1,\"large,slow\",10,")) << lines[3];
  EXPECT_TRUE(lines[6].starts_with("mixed,sweep,2,\"large,slow\",10,")) << lines[6];
  EXPECT_TRUE(lines[3].ends_with(",1")) << lines[3];  // the knee's level, model rows too
  EXPECT_TRUE(lines[6].ends_with(",0")) << lines[6];
  const bench::Stat& own = points[1].by_model[0].second.ttft_ms;
  EXPECT_NE(lines[5].find(fmt::format(",{},{},{},{},{},", own.mean, own.p50, own.p90, own.p95, own.p99)),
            std::string::npos)
      << lines[5];
}

// A max-load search over a replayed trace's speeds reads back as levels of speed, its answer marked.
TEST(ReportDocument, AMaxLoadSearchOfReplaySpeedsReadsBackBySpeed) {
  std::vector<bench::SweepPoint> points;
  for (const double speed : {1.0, 2.0, 4.0}) {
    bench::SweepPoint p;
    p.level = speed;
    p.summary = bench::summarize_run(records(50, 5 * speed));
    points.push_back(p);
  }
  const boost::json::object extra{
      {"max_load", bench::max_load_json(points, 2.0, 4.0, {}, {}, bench::SweepSpec::Kind::speed)}};
  const RunDocument d = document_from_json(bench::summary_document({}, nullptr, extra), "replay");
  EXPECT_EQ(d.kind, RunDocument::Kind::max_load);
  EXPECT_EQ(d.level_kind, "speed");
  EXPECT_EQ(d.knee, 1u);
  EXPECT_EQ(d.summary_of, "speed 2 (the max load)");
  EXPECT_NE(html_report({d}).find("replay speed (x the trace"), std::string::npos);
}

// A sweep measured with --percentiles 99.9 shows those tails in its per-level tables too.
TEST(ReportTables, ASweepsLevelTablesShowItsMorePercentiles) {
  std::vector<bench::SweepPoint> points;
  for (const double level : {1.0, 2.0}) {
    bench::SweepPoint p;
    p.level = level;
    p.summary = bench::summarize_run(records(300, 5 * level), std::vector<double>{99.9});
    points.push_back(p);
  }
  const boost::json::object extra{{"sweep", bench::sweep_json(bench::parse_sweep("concurrency=1,2"), points,
                                                              std::nullopt, bench::KneeRule{}, {}, {})}};
  const RunDocument d = document_from_json(bench::summary_document({}, nullptr, extra), "tails");
  const std::string md = markdown_report({d});
  EXPECT_NE(md.find("| concurrency | req/s | output tok/s | TTFT p50 | TTFT p99 | TTFT p99.9 | TPOT p50 | TPOT p99 | "
                    "TPOT p99.9 | failed | |\n|---|---|---|---|---|---|---|---|---|---|---|\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find(format_number(*points[1].summary.ttft_ms.at(99.9))), std::string::npos) << md;
  const std::string html = html_report({d});
  EXPECT_NE(html.find("<th>TTFT p99.9 (ms)</th>"), std::string::npos);
  EXPECT_NE(html.find("<th>TPOT p99.9 (ms)</th>"), std::string::npos);
}

TEST(ReportTables, CsvHasAColumnForEachPercentileAnyRowHolds) {
  const std::string csv = csv_report({single_run_with("tails", 5, {99.9}), single_run("plain", 5)});
  std::vector<std::vector<std::string>> rows;
  std::size_t start = 0;
  for (std::size_t end = csv.find('\n'); end != std::string::npos; start = end + 1, end = csv.find('\n', start)) {
    std::vector<std::string> cells;
    const std::string line = csv.substr(start, end - start);
    std::size_t from = 0;
    for (std::size_t comma = line.find(',');; from = comma + 1, comma = line.find(',', from)) {
      cells.push_back(line.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
      if (comma == std::string::npos) {
        break;
      }
    }
    rows.push_back(std::move(cells));
  }
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].size(), rows[0].size());
  EXPECT_EQ(rows[2].size(), rows[0].size());
  const auto column = [&](const std::string& name) {
    return std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin();
  };
  const auto tail = column("ttft_ms_p99.9");
  ASSERT_LT(tail, static_cast<std::ptrdiff_t>(rows[0].size()));
  EXPECT_EQ(tail, column("ttft_ms_p99") + 1);
  EXPECT_EQ(column("ttft_ms_max"), tail + 1);
  EXPECT_GT(std::stod(rows[1][tail]), std::stod(rows[1][column("ttft_ms_p99")]));
  EXPECT_EQ(rows[2][tail], "");  // the plain run was not asked for it
  EXPECT_EQ(csv_report({single_run("plain", 5)}).find("p99.9"), std::string::npos);
}

TEST(ReportTables, MarkdownShowsEachRunsExtraBodyWithItsBarsEscaped) {
  const bench::BenchSummary summary = bench::summarize_run(records(30, 5));
  const RunDocument plain = document_from_json(bench::summary_document({{"extra_body", nullptr}}, &summary), "plain");
  const RunDocument tuned = document_from_json(
      bench::summary_document({{"extra_body", {{"temperature", 0}, {"stop", {"a|b"}}}}}, &summary), "tuned");
  const std::string md = markdown_report({plain, tuned});
  EXPECT_NE(md.find(R"(| extra_body | - | {"temperature":0,"stop":["a\|b"]} |)"), std::string::npos) << md;
}

TEST(ReportTables, NumbersKeepUsefulDigits) {
  EXPECT_EQ(format_number(6871.234), "6871.2");
  EXPECT_EQ(format_number(12.345), "12.35");
  EXPECT_EQ(format_number(0.95432), "0.954");
  EXPECT_EQ(format_number(3), "3.0");
}

TEST(ReportSvg, RoundTicksEscapingAndDataMarks) {
  EXPECT_EQ(nice_ticks(0, 9.3), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(nice_ticks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  EXPECT_EQ(nice_ticks(0, 10), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(escape_xml("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");

  Chart chart{"c", "T <1>", "x (s)", "y", false, {}, {}};
  EXPECT_NE(render_svg(chart).find("no data to draw"), std::string::npos);
  chart.series.push_back({"run", ChartSeries::Style::line, {{1, 2}, {2, 4}, {3, 3}}, 1, "knee"});
  const std::string svg = render_svg(chart);
  EXPECT_EQ(svg.find("no data"), std::string::npos);
  EXPECT_NE(svg.find("T &lt;1&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">knee</text>"), std::string::npos);
  std::size_t marks = 0;
  for (std::size_t at = svg.find("class=\"data"); at != std::string::npos; at = svg.find("class=\"data", at + 1)) {
    ++marks;
  }
  EXPECT_EQ(marks, 4u);  // the line and its three points
}

// Values at the edge of a double's range (from a damaged result) still draw, in bounded time.
TEST(ReportSvg, ExtremeValuesStillDraw) {
  const std::vector<double> far = nice_ticks(-1e308, -1e308);  // widened by the value's own scale
  EXPECT_GE(far.size(), 2u);
  EXPECT_LE(far.size(), 8u);
  EXPECT_FALSE(nice_ticks(0, std::numeric_limits<double>::infinity()).empty());
  for (const auto& [x, y] : {std::pair{-1e308, 5.0}, {5.0, 1.7e308}, {1e308, 1e308}}) {
    Chart chart{"c", "T", "x", "y", false, {}, {}};
    chart.series.push_back({"run", ChartSeries::Style::points, {{x, y}}, std::nullopt, {}});
    EXPECT_NE(render_svg(chart).find("class=\"data"), std::string::npos) << x << " " << y;
  }
}

// A log axis under a decade wide (concurrency 1 to 4) is labelled inside the plot only.
TEST(ReportSvg, LogAxisTicksStayInsideThePlot) {
  Chart chart{"c", "T", "concurrency", "y", true, {}, {}};
  chart.series.push_back({"sweep", ChartSeries::Style::line, {{1, 10}, {4, 20}}, std::nullopt, {}});
  const std::string svg = render_svg(chart);
  const std::size_t plot = svg.find("class=\"plot\"");
  ASSERT_NE(plot, std::string::npos);
  double left = 0;
  double width = 0;
  ASSERT_EQ(std::sscanf(svg.c_str() + svg.rfind("<rect x=\"", plot), "<rect x=\"%lf\" y=\"%*f\" width=\"%lf\"", &left,
                        &width),
            2);
  std::size_t ticks = 0;
  for (std::size_t at = svg.find("class=\"xtick\""); at != std::string::npos;
       at = svg.find("class=\"xtick\"", at + 1)) {
    double x = 0;
    ASSERT_EQ(std::sscanf(svg.c_str() + svg.rfind("<text x=\"", at), "<text x=\"%lf\"", &x), 1);
    EXPECT_GE(x, left - 0.1);
    EXPECT_LE(x, left + width + 0.1);
    ++ticks;
  }
  EXPECT_GE(ticks, 3u);  // 1, 2, 3, 4
}

TEST(ReportHtml, SelfContainedWithEveryChart) {
  const std::string html = html_report({single_run("a", 5), single_run("b<script>", 9)});
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  for (const char* fetch : {"src=\"http", "href=\"http", "@import", "url("}) {
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;  // nothing is fetched
  }
  EXPECT_EQ(html.find("b<script>"), std::string::npos);  // labels are escaped
  for (const char* chart : {"latency-vs-throughput", "ttft-cdf", "tpot-cdf", "itl-histogram"}) {
    EXPECT_NE(html.find(std::string("data-chart=\"") + chart + "\""), std::string::npos) << chart;
  }
}

}  // namespace
}  // namespace infergate::report
