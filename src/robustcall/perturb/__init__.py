"""robustcall.perturb"""
