#pragma once
// One rack's secondary (TCS) liquid loop: PG25 coolant, flow set by the control valve and the
// row CDU's pumps, and a lumped thermal mass between supply and return (docs/domain/cooling.md).
// Steady state is the energy balance T_return = T_supply + P / (rho * c_p * flow);
// when flow stops the loop heats at P / C_th.

namespace watchfloor::server::sim {

inline constexpr double kCoolantDensityKgPerL = 1.02;  // PG25
inline constexpr double kCoolantCpKjPerKgK = 3.9;      // PG25

struct LoopInputs {
    double supplyC = 25;
    double rackPowerKw = 0;
    bool pumpsAvailable = true;  // at least one CDU pump running
    double filterClog = 0;       // 0 clean .. 1 fully loaded (dP high)
    bool valveClosed = false;    // isolated or stuck closed
};

class CoolingLoop {
public:
    CoolingLoop(double designPowerKw, double supplySetpointC);

    // Advances `dtS` seconds with inputs held constant (exact solution of the linear model, so
    // the result barely depends on the step size).
    void step(double dtS, const LoopInputs& in);

    double supplyC() const { return supplyC_; }
    double returnC() const { return returnC_; }
    double flowLpm() const { return flowLpm_; }
    double designFlowLpm() const { return designFlowLpm_; }
    double differentialPressureBar() const { return dpBar_; }
    double differentialPressureSetpointBar() const { return dpSetpointBar_; }
    double valvePct() const { return valvePct_; }
    // Coolant temperature at the GPU cold plates (downstream of CPUs and switches).
    double coldPlateC() const { return supplyC_ + 0.6 * (returnC_ - supplyC_); }

    // Heat the coolant carries away: rho * c_p * flow * (T_return - T_supply), in kW.
    static double heatCarriedKw(double flowLpm, double supplyC, double returnC);

private:
    double designFlowLpm_;
    double dpSetpointBar_ = 1.5;  // manifold dP setpoint, within the 0.5-3 bar band [A]
    double supplyC_;
    double returnC_;
    double flowLpm_;
    double dpBar_;
    double valvePct_ = 65;
};

}  // namespace watchfloor::server::sim
