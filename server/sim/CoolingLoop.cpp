#include "CoolingLoop.h"

#include "FleetModel.h"

#include <algorithm>
#include <cmath>

namespace watchfloor::server::sim {
namespace {

constexpr double kThermalMassKjPerK = 340;  // ~60 L of PG25 plus cold plates and manifolds [A]
constexpr double kAirLossKwPerK = 0.1;      // what leaks to room air through the insulation [A]
constexpr double kRoomC = 25;
constexpr double kFlowTimeConstantS = 3;  // valve and pump response
constexpr double kNominalValvePct = 65;
constexpr double kClogFlowLoss = 0.12;  // a loaded filter costs up to 12% flow [A]
constexpr double kClogDpRiseBar = 1.2;

double massFlowKwPerK(double flowLpm) { return flowLpm / 60.0 * kCoolantDensityKgPerL * kCoolantCpKjPerKgK; }

}  // namespace

CoolingLoop::CoolingLoop(double designPowerKw, double supplySetpointC)
    : designFlowLpm_(kFlowLpmPerKw * designPowerKw),
      supplyC_(supplySetpointC),
      returnC_(supplySetpointC),
      flowLpm_(designFlowLpm_),
      dpBar_(dpSetpointBar_) {}

double CoolingLoop::heatCarriedKw(double flowLpm, double supplyC, double returnC) {
    return massFlowKwPerK(flowLpm) * (returnC - supplyC);
}

void CoolingLoop::step(double dtS, const LoopInputs& in) {
    supplyC_ = in.supplyC;
    const double clog = std::clamp(in.filterClog, 0.0, 1.0);
    const double targetFlow =
        in.valveClosed || !in.pumpsAvailable ? 0.0 : designFlowLpm_ * (1.0 - kClogFlowLoss * clog);
    flowLpm_ = targetFlow + (flowLpm_ - targetFlow) * std::exp(-dtS / kFlowTimeConstantS);
    if (flowLpm_ < 0.05) flowLpm_ = targetFlow == 0.0 ? 0.0 : flowLpm_;
    // The valve opens further to hold the dP setpoint against a loading filter.
    valvePct_ = in.valveClosed ? 0.0 : std::min(100.0, kNominalValvePct + 30.0 * clog);
    const double flowRatio = flowLpm_ / designFlowLpm_;
    dpBar_ = dpSetpointBar_ * flowRatio * flowRatio + kClogDpRiseBar * clog * flowRatio;

    // C dT/dt = P - m_cp (T - T_supply) - k_air (T - T_room): linear, solved exactly over dt.
    const double mcp = massFlowKwPerK(flowLpm_);
    const double conductance = mcp + kAirLossKwPerK;
    const double steadyC = (in.rackPowerKw + mcp * supplyC_ + kAirLossKwPerK * kRoomC) / conductance;
    returnC_ = steadyC + (returnC_ - steadyC) * std::exp(-dtS * conductance / kThermalMassKjPerK);
}

}  // namespace watchfloor::server::sim
