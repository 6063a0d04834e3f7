// Adam, the learning-rate schedule and gradient clipping against hand-computed values.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "train/adam.h"

using pmt::train::Adam;

TEST_CASE("Adam follows the bias-corrected update over three steps") {
  // Parameter 0 starts at 1 and sees gradients 0.5, -1, 0.25 at learning rates 0.1, 0.1, 0.05;
  // parameter 1 starts at -2 and never gets a gradient. Values by hand (double precision):
  // t=1: m=0.05, v=0.005, p = 1 - 0.1 * 0.5 / (0.5 + 1e-9) = 0.9
  // t=2: m=-0.055, v=0.0249, p = 0.9 + 0.1 * (0.055/0.19) / (sqrt(0.0249/0.0396) + 1e-9) = 0.93650539
  // t=3: m=-0.0245, v=0.025652, p = 0.94334962
  Adam adam(2);
  std::vector<float> p = {1.f, -2.f}, g = {0.f, 0.f};
  const float grads[3] = {0.5f, -1.f, 0.25f}, lrs[3] = {0.1f, 0.1f, 0.05f};
  const double expect_p[3] = {0.9, 0.9365053914512174, 0.9433496181552697};
  const double expect_m[3] = {0.05, -0.055, -0.0245}, expect_v[3] = {0.005, 0.0249, 0.025652};
  for (int t = 0; t < 3; ++t) {
    g[0] = grads[t];
    adam.step(p.data(), g.data(), lrs[t]);
    CHECK(adam.steps() == t + 1);
    CHECK(p[0] == doctest::Approx(expect_p[t]).epsilon(1e-6));
    CHECK(adam.m()[0] == doctest::Approx(expect_m[t]).epsilon(1e-6));
    CHECK(adam.v()[0] == doctest::Approx(expect_v[t]).epsilon(1e-6));
    CHECK(p[1] == -2.f);  // zero gradient, zero moments: no movement
  }
}

TEST_CASE("Adam's moments carry over: a restored optimizer continues identically") {
  Adam a(3), b(3);
  std::vector<float> pa = {0.1f, 0.2f, 0.3f}, g = {1.f, -0.5f, 0.25f};
  a.step(pa.data(), g.data(), 0.01f);
  std::vector<float> pb = pa;
  std::copy(a.m(), a.m() + 3, b.m());
  std::copy(a.v(), a.v() + 3, b.v());
  b.set_steps(a.steps());
  g = {-0.3f, 0.7f, 2.f};
  a.step(pa.data(), g.data(), 0.02f);
  b.step(pb.data(), g.data(), 0.02f);
  CHECK(pa == pb);
}

TEST_CASE("the schedule warms up linearly and decays as 1/sqrt(step)") {
  using pmt::train::noam_lr;
  // 256^-0.5 * min(step^-0.5, step * 4000^-1.5)
  CHECK(noam_lr(1, 256, 4000, 1.0) == doctest::Approx(2.4705294220065465e-07).epsilon(1e-9));
  CHECK(noam_lr(4000, 256, 4000, 1.0) == doctest::Approx(0.0009882117688026185).epsilon(1e-9));
  CHECK(noam_lr(16000, 256, 4000, 1.0) == doctest::Approx(0.0004941058844013092).epsilon(1e-9));
  CHECK(noam_lr(100, 256, 10, 1.0) == doctest::Approx(0.00625).epsilon(1e-9));
  // The scale multiplies; warm-up is linear in the step.
  CHECK(noam_lr(50, 32, 100, 2.0) == doctest::Approx(0.01767766952966369).epsilon(1e-9));
  CHECK(noam_lr(2000, 256, 4000, 1.0) == doctest::Approx(noam_lr(1000, 256, 4000, 1.0) * 2).epsilon(1e-9));
  CHECK(noam_lr(3999, 256, 4000, 1.0) < noam_lr(4000, 256, 4000, 1.0));
  CHECK(noam_lr(4001, 256, 4000, 1.0) < noam_lr(4000, 256, 4000, 1.0));
}

TEST_CASE("global-norm clipping scales only gradients above the threshold") {
  using pmt::train::clip_grads;
  using pmt::train::grad_norm;
  std::vector<float> g = {3.f, 0.f, -4.f};
  const double norm = grad_norm(g.data(), g.size());
  CHECK(norm == doctest::Approx(5.0));
  clip_grads(g.data(), g.size(), norm, 10.0);  // below: untouched
  CHECK(g == std::vector<float>{3.f, 0.f, -4.f});
  clip_grads(g.data(), g.size(), norm, 0.0);   // 0: disabled
  CHECK(g == std::vector<float>{3.f, 0.f, -4.f});
  clip_grads(g.data(), g.size(), norm, 1.0);
  CHECK(g[0] == doctest::Approx(0.6).epsilon(1e-5));
  CHECK(g[2] == doctest::Approx(-0.8).epsilon(1e-5));
  CHECK(grad_norm(g.data(), g.size()) == doctest::Approx(1.0).epsilon(1e-5));
}

TEST_CASE("the cool-down holds the rate, then lowers it linearly over the last N steps") {
  using pmt::train::decay_factor;
  CHECK(decay_factor(1, 100, 0) == 1.0);  // off
  CHECK(decay_factor(100, 100, 0) == 1.0);
  CHECK(decay_factor(1, 100, 10) == 1.0);
  CHECK(decay_factor(90, 100, 10) == 1.0);   // the step before the last 10
  CHECK(decay_factor(91, 100, 10) == 1.0);   // first of the last 10: 10 / 10
  CHECK(decay_factor(92, 100, 10) == doctest::Approx(0.9));
  CHECK(decay_factor(100, 100, 10) == doctest::Approx(0.1));
  CHECK(decay_factor(101, 100, 10) == 0.0);  // past the end: never negative
  // A cool-down longer than the run starts below 1.
  CHECK(decay_factor(1, 4, 8) == doctest::Approx(0.5));
}
